/*
 * awp-espeak-engine: a long-lived speech engine over libespeak-ng.
 *
 * It synthesizes utterance after utterance for one parent process, so a request costs the
 * synthesis alone instead of a process start plus the synthesis. espeak-ng is GPL: this
 * program is the only code that links it, and the service talks to it over stdin/stdout.
 *
 * Framing (both directions): a 9-byte header, then `length` payload bytes.
 *   u8 type, u32 id (little-endian), u32 length (little-endian)
 *
 * Parent -> engine:
 *   'S' synthesize: payload = u16 words per minute, u8 pitch (0..99), u8 voice length,
 *       voice name (ASCII), text (UTF-8, the rest of the payload). One at a time: the
 *       parent sends the next 'S' only after the previous one ended ('E' or 'X').
 *   'C' cancel: length 0; stops synthesis of request `id` if it is still running (it then
 *       ends with 'E'); ignored when `id` already ended.
 * Engine -> parent:
 *   'R' ready, id 0: payload = u32 sample rate in Hz, sent once after start-up.
 *   'A' audio: payload = 16-bit little-endian mono PCM samples, while synthesizing.
 *   'E' end of request `id` (length 0).
 *   'X' error for request `id`: payload = UTF-8 message; the engine stays usable.
 *
 * Each utterance runs in a fork of the initialized engine (see serve()), so every one starts
 * from the same state and sounds exactly as `espeak-ng --stdout --stdin -b 1` says it.
 *
 * The engine exits 0 at end of input, and non-zero on a malformed frame or when it cannot
 * write to the parent.
 */
#include <errno.h>
#include <espeak-ng/speak_lib.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define HEADER_BYTES 9
/* Requests larger than this are refused by the parent already; here it guards memory. */
#define MAX_PAYLOAD (16u * 1024u * 1024u)

static uint32_t current_id;
static int cancelled;

static void put_u32(unsigned char *at, uint32_t value) {
  at[0] = value & 0xff;
  at[1] = (value >> 8) & 0xff;
  at[2] = (value >> 16) & 0xff;
  at[3] = (value >> 24) & 0xff;
}

static uint32_t get_u32(const unsigned char *at) {
  return (uint32_t)at[0] | ((uint32_t)at[1] << 8) | ((uint32_t)at[2] << 16) |
         ((uint32_t)at[3] << 24);
}

static void write_all(const void *data, size_t length) {
  const unsigned char *bytes = data;
  while (length > 0) {
    ssize_t written = write(STDOUT_FILENO, bytes, length);
    if (written < 0) {
      if (errno == EINTR) continue;
      /* The parent is gone or closed our output: nothing left to do. */
      _exit(3);
    }
    bytes += written;
    length -= (size_t)written;
  }
}

static void send_frame(char type, uint32_t id, const void *payload, uint32_t length) {
  unsigned char header[HEADER_BYTES];
  header[0] = (unsigned char)type;
  put_u32(header + 1, id);
  put_u32(header + 5, length);
  write_all(header, HEADER_BYTES);
  if (length > 0) write_all(payload, length);
}

/* Reads exactly `length` bytes; returns 0 at end of input before the first byte. */
static int read_all(void *data, size_t length) {
  unsigned char *bytes = data;
  size_t done = 0;
  while (done < length) {
    ssize_t got = read(STDIN_FILENO, bytes + done, length - done);
    if (got < 0) {
      if (errno == EINTR) continue;
      _exit(4);
    }
    if (got == 0) {
      if (done == 0) return 0;
      _exit(4); /* end of input inside a frame */
    }
    done += (size_t)got;
  }
  return 1;
}

/*
 * While synthesizing, the only frame the parent may send is a cancel. Checked between
 * audio buffers (every ~60 ms of audio, well under a millisecond of CPU).
 */
static void check_cancel(void) {
  struct pollfd input = {.fd = STDIN_FILENO, .events = POLLIN};
  while (poll(&input, 1, 0) > 0) {
    unsigned char header[HEADER_BYTES];
    if (!read_all(header, HEADER_BYTES)) _exit(0);
    if (header[0] != 'C' || get_u32(header + 5) != 0) _exit(5);
    if (get_u32(header + 1) == current_id) cancelled = 1;
  }
}

static int on_audio(short *samples, int count, espeak_EVENT *events) {
  (void)events;
  if (samples != NULL && count > 0 && !cancelled) {
    send_frame('A', current_id, samples, (uint32_t)count * 2u);
  }
  check_cancel();
  return cancelled; /* non-zero stops synthesis */
}

static void send_error(uint32_t id, const char *message) {
  send_frame('X', id, message, (uint32_t)strlen(message));
}

static void synthesize(uint32_t id, unsigned char *payload, uint32_t length) {
  if (length < 4) {
    send_error(id, "request too short");
    return;
  }
  unsigned int wpm = payload[0] | (payload[1] << 8);
  unsigned int pitch = payload[2];
  unsigned int voice_length = payload[3];
  if (voice_length == 0 || 4u + voice_length > length || pitch > 99) {
    send_error(id, "malformed request");
    return;
  }
  char voice[256];
  memcpy(voice, payload + 4, voice_length);
  voice[voice_length] = '\0';
  /* As the espeak-ng program's -v: a voice file name, else a language (with +variant). */
  espeak_VOICE by_language;
  memset(&by_language, 0, sizeof(by_language));
  by_language.languages = voice;
  if (espeak_SetVoiceByName(voice) != EE_OK && espeak_SetVoiceByProperties(&by_language) != EE_OK) {
    send_error(id, "unknown voice");
    return;
  }
  espeak_SetParameter(espeakRATE, (int)wpm, 0);
  espeak_SetParameter(espeakPITCH, (int)pitch, 0);

  uint32_t text_length = length - 4u - voice_length;
  char *text = (char *)payload + 4 + voice_length;
  current_id = id;
  cancelled = 0;
  if (text_length > 0) {
    /* The payload buffer has one spare byte for the terminator. */
    text[text_length] = '\0';
    /* As `espeak-ng --stdin -b 1`: UTF-8, [[phonemes]] allowed, a pause at the end; no SSML. */
    unsigned int flags = espeakCHARS_UTF8 | espeakPHONEMES | espeakENDPAUSE;
    espeak_ERROR result = espeak_Synth(text, text_length + 1, 0, POS_CHARACTER, 0, flags, NULL, NULL);
    if (result != EE_OK && !cancelled) {
      send_error(id, "synthesis failed");
      return;
    }
  }
  send_frame('E', id, NULL, 0);
}

/*
 * libespeak-ng keeps state from one utterance to the next (a language's intonation tunes
 * outlive a switch to another voice, timing carries over), so utterances served one after
 * another would differ from what the espeak-ng program says for the same text. Each
 * utterance is therefore synthesized in a fork of this initialized process, which starts
 * from the same pristine state every time; a fork without exec costs a fraction of a
 * millisecond, against about 12 ms for starting espeak-ng.
 */
static void serve(uint32_t id, unsigned char *payload, uint32_t length) {
  fflush(NULL);
  pid_t child = fork();
  if (child < 0) {
    send_error(id, "fork failed");
    return;
  }
  if (child == 0) {
    /* Dies with the engine, so a killed engine never leaves a synthesis running. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1) _exit(7);
    synthesize(id, payload, length);
    _exit(0);
  }
  int status;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) break;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    /* The child wrote whole frames or nothing; the request ends with an error frame. */
    send_error(id, "synthesis crashed");
  }
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  int rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, NULL, 0);
  if (rate <= 0) {
    fprintf(stderr, "awp-espeak-engine: espeak-ng could not be initialized\n");
    return 1;
  }
  espeak_SetSynthCallback(on_audio);
  unsigned char ready[4];
  put_u32(ready, (uint32_t)rate);
  send_frame('R', 0, ready, 4);

  unsigned char *payload = NULL;
  size_t capacity = 0;
  for (;;) {
    unsigned char header[HEADER_BYTES];
    if (!read_all(header, HEADER_BYTES)) return 0;
    char type = (char)header[0];
    uint32_t id = get_u32(header + 1);
    uint32_t length = get_u32(header + 5);
    if (length > MAX_PAYLOAD) return 5;
    if (length + 1u > capacity) {
      free(payload);
      capacity = length + 1u;
      payload = malloc(capacity);
      if (payload == NULL) return 6;
    }
    if (length > 0 && !read_all(payload, length)) return 4;
    if (type == 'S') {
      serve(id, payload, length);
    } else if (type != 'C') {
      return 5; /* a cancel that arrives after its request ended is ignored */
    }
  }
}
