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
 *       u32 output rate in Hz (0: the engine's own rate), u8 flags (bit 0: send marks),
 *       voice name (ASCII), text (UTF-8, the rest of the payload). One at a time: the parent sends the next 'S' only after
 *       the previous one ended ('E' or 'X').
 *   'C' cancel: length 0; stops synthesis of request `id` if it is still running (it then
 *       ends with 'E'); ignored when `id` already ended.
 * Engine -> parent:
 *   'R' ready, id 0: payload = u32 sample rate in Hz, u32 protocol version
 *       (PROTOCOL_VERSION), sent once after start-up.
 *   'A' audio: payload = 16-bit little-endian mono PCM samples at the request's output
 *       rate, while synthesizing.
 *   'M' mark (only when asked for): payload = u8 kind ('w': a word starts, 'b': a clause,
 *       sentence or the utterance ends), u32 sample (position in the utterance's audio at
 *       the engine's own rate), u32 text position (characters from the start of the text,
 *       1-based), u32 length (characters of the word). Sent before the audio it falls in.
 *   'E' end of request `id` (length 0).
 *   'X' error for request `id`: payload = UTF-8 message; the engine stays usable.
 *
 * Each utterance runs in a fork of a per-voice template (see template_for()), so every one
 * starts from the same state and sounds exactly as `espeak-ng --stdout --stdin -b 1` says it.
 * At another output rate the utterance process resamples with libsoxr (high quality,
 * linear phase) as the audio is produced, so the service receives the rate it delivers.
 *
 * The engine exits 0 at end of input, and non-zero on a malformed frame or when it cannot
 * write to the parent.
 */
#include <errno.h>
#include <limits.h>
#include <espeak-ng/speak_lib.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <soxr.h>
#include <unistd.h>

#define HEADER_BYTES 9
/* Bumped when the framing changes; the service refuses an engine built from other sources. */
#define PROTOCOL_VERSION 3
/* Fixed part of an 'S' payload: rate, pitch, voice length, output rate, flags. */
#define REQUEST_HEAD 9u
/* 'S' flag: send word and boundary marks (espeak-ng's events) for alignment. */
#define FLAG_MARKS 1u
/* Output rates the engine resamples to. */
#define MIN_OUTPUT_RATE 8000u
#define MAX_OUTPUT_RATE 48000u
/* Requests larger than this are refused by the parent already; here it guards memory. */
#define MAX_PAYLOAD (16u * 1024u * 1024u)

static uint32_t current_id;
static int cancelled;
/* Whether the utterance being spoken sends 'M' frames. */
static int send_marks;
/* The engine's own rate, and the resampler of the utterance being spoken (NULL: none). */
static unsigned int engine_rate;
static soxr_t resampler;

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

/*
 * Frames go out whole: an utterance process killed mid-write must never leave half a frame
 * behind, or the error frame its template sends next would not be read as a frame. A frame
 * other than audio is at most PIPE_BUF bytes and goes out in one write.
 */
#define MAX_FRAME PIPE_BUF

/*
 * An utterance's frames are gathered here and written together, OUTPUT_BYTES at most, so a
 * sentence costs a handful of writes (and wake-ups of the parent) instead of one per ~50 ms
 * engine buffer. The first audio goes out at once; after it, a write is one audio frame of
 * 32 KiB of PCM, the piece the parent hands on (engine-helper.ts), unless marks or the
 * utterance's end come first. The parent's end of our stdout is a Unix stream socket
 * (Node's child stdio), which on Linux takes a write of up to 32 KiB plus a page's head
 * as one buffer, whole or not at all, so a write cut short by a kill leaves nothing
 * behind; a pipe would take only PIPE_BUF whole, which is why other frames stay that small.
 */
#define OUTPUT_BYTES (HEADER_BYTES + 32u * 1024u)
static unsigned char output[OUTPUT_BYTES];
static size_t output_used;
/* Offset in `output` of the audio frame that further samples extend; NO_FRAME: none. */
#define NO_FRAME ((size_t)-1)
static size_t open_audio = NO_FRAME;
/* Whether the utterance's first audio has gone out. */
static int audio_started;

static void flush_output(void) {
  if (output_used > 0) write_all(output, output_used);
  output_used = 0;
  open_audio = NO_FRAME;
}

static void put_header(unsigned char *at, char type, uint32_t id, uint32_t length) {
  at[0] = (unsigned char)type;
  put_u32(at + 1, id);
  put_u32(at + 5, length);
}

/* Adds a frame after the gathered ones; its payload is cut to fit one PIPE_BUF write. */
static void queue_frame(char type, uint32_t id, const void *payload, uint32_t length) {
  if (length > MAX_FRAME - HEADER_BYTES) length = MAX_FRAME - HEADER_BYTES;
  if (output_used + HEADER_BYTES + length > OUTPUT_BYTES) flush_output();
  put_header(output + output_used, type, id, length);
  if (length > 0) memcpy(output + output_used + HEADER_BYTES, payload, length);
  output_used += HEADER_BYTES + length;
  open_audio = NO_FRAME;
}

/* Writes what is gathered and then this frame. */
static void send_frame(char type, uint32_t id, const void *payload, uint32_t length) {
  queue_frame(type, id, payload, length);
  flush_output();
}

/* Appends samples to the open audio frame (or a new one), writing whenever `output` fills. */
static void queue_audio(uint32_t id, const short *samples, size_t count) {
  while (count > 0) {
    if (open_audio == NO_FRAME) {
      if (output_used + HEADER_BYTES + 2 > OUTPUT_BYTES) flush_output();
      open_audio = output_used;
      put_header(output + open_audio, 'A', id, 0);
      output_used += HEADER_BYTES;
    }
    size_t room = (OUTPUT_BYTES - output_used) / 2;
    size_t n = count < room ? count : room;
    memcpy(output + output_used, samples, n * 2);
    output_used += n * 2;
    put_u32(output + open_audio + 5, (uint32_t)(output_used - open_audio - HEADER_BYTES));
    samples += n;
    count -= n;
    if (output_used + 2 > OUTPUT_BYTES) flush_output();
  }
  if (!audio_started) {
    audio_started = 1;
    flush_output();
  }
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

static void send_error(uint32_t id, const char *message);

static void send_audio(const short *samples, size_t count) {
  if (!cancelled) queue_audio(current_id, samples, count);
}

/*
 * Resamples `count` samples (NULL: the end of the utterance, which flushes what the
 * filter holds) and sends what comes out.
 */
static void send_resampled(const short *samples, size_t count) {
  /* Room for about four engine buffers (the size only sets how often soxr is called). */
  short out[4 * ((MAX_FRAME - HEADER_BYTES) / 2)];
  size_t used = 0;
  for (;;) {
    size_t consumed = 0, produced = 0;
    size_t left = samples == NULL ? 0 : count - used;
    soxr_error_t error = soxr_process(resampler, samples == NULL ? NULL : samples + used, left,
                                      &consumed, out, sizeof out / sizeof out[0], &produced);
    if (error != NULL) {
      send_error(current_id, "resampling failed");
      _exit(0);
    }
    used += consumed;
    send_audio(out, produced);
    if (cancelled) return;
    /* Done once the input is used up and the output buffer was not filled. */
    if ((samples == NULL || used >= count) && produced < sizeof out / sizeof out[0]) return;
  }
}

/* The word starts and boundaries among espeak-ng's events, as 'M' frames. */
static void send_events(const espeak_EVENT *events) {
  for (const espeak_EVENT *e = events; e != NULL && e->type != espeakEVENT_LIST_TERMINATED; e++) {
    unsigned char kind;
    if (e->type == espeakEVENT_WORD) kind = 'w';
    else if (e->type == espeakEVENT_END || e->type == espeakEVENT_SENTENCE ||
             e->type == espeakEVENT_MSG_TERMINATED)
      kind = 'b';
    else continue;
    unsigned char mark[13];
    mark[0] = kind;
    put_u32(mark + 1, (uint32_t)(e->sample < 0 ? 0 : e->sample));
    put_u32(mark + 5, (uint32_t)(e->text_position < 0 ? 0 : e->text_position));
    put_u32(mark + 9, (uint32_t)(e->length < 0 ? 0 : e->length));
    queue_frame('M', current_id, mark, sizeof mark);
  }
}

static int on_audio(short *samples, int count, espeak_EVENT *events) {
  if (send_marks && !cancelled) send_events(events);
  if (samples != NULL && count > 0) {
    if (resampler != NULL) send_resampled(samples, (size_t)count);
    else send_audio(samples, (size_t)count);
  }
  check_cancel();
  return cancelled; /* non-zero stops synthesis */
}

static void send_error(uint32_t id, const char *message) {
  send_frame('X', id, message, (uint32_t)strlen(message));
}

/* Reads the voice name of an 'S' payload into `voice`; sends an error frame when malformed. */
static int parse_voice(uint32_t id, const unsigned char *payload, uint32_t length, char *voice) {
  if (length < REQUEST_HEAD || payload[3] == 0 || REQUEST_HEAD + payload[3] > length ||
      payload[2] > 99) {
    send_error(id, "malformed request");
    return 0;
  }
  uint32_t rate = get_u32(payload + 4);
  if (rate != 0 && (rate < MIN_OUTPUT_RATE || rate > MAX_OUTPUT_RATE)) {
    send_error(id, "unsupported output rate");
    return 0;
  }
  memcpy(voice, payload + REQUEST_HEAD, payload[3]);
  voice[payload[3]] = '\0';
  return 1;
}

/* As the espeak-ng program's -v: a voice file name, else a language (with +variant). */
static int load_voice(const char *voice) {
  espeak_VOICE by_language;
  memset(&by_language, 0, sizeof(by_language));
  by_language.languages = voice;
  return espeak_SetVoiceByName(voice) == EE_OK || espeak_SetVoiceByProperties(&by_language) == EE_OK;
}

/* Speaks one parsed request with its voice (and resampler, if any) already set up. */
static void speak(uint32_t id, unsigned char *payload, uint32_t length) {
  unsigned int wpm = payload[0] | (payload[1] << 8);
  unsigned int voice_length = payload[3];
  espeak_SetParameter(espeakRATE, (int)wpm, 0);
  espeak_SetParameter(espeakPITCH, (int)payload[2], 0);
  uint32_t text_length = length - REQUEST_HEAD - voice_length;
  char *text = (char *)payload + REQUEST_HEAD + voice_length;
  current_id = id;
  cancelled = 0;
  send_marks = (payload[8] & FLAG_MARKS) != 0;
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
    if (resampler != NULL && !cancelled) send_resampled(NULL, 0);
  }
  send_frame('E', id, NULL, 0);
}

/*
 * Resamplers from the engine's rate, one per output rate, made once in a template and never
 * used there: each utterance (a fork) inherits a fresh one without paying for its set-up.
 */
#define MAX_RESAMPLERS 4

static struct {
  uint32_t rate;
  soxr_t soxr;
} resamplers[MAX_RESAMPLERS];

/* The pristine resampler to `rate`, made on first use; NULL for the engine's own rate. */
static soxr_t resampler_for(uint32_t rate) {
  if (rate == 0 || rate == engine_rate) return NULL;
  int slot = 0;
  for (int i = 0; i < MAX_RESAMPLERS; i++) {
    if (resamplers[i].rate == rate) return resamplers[i].soxr;
    if (resamplers[i].rate == 0) slot = i;
  }
  if (resamplers[slot].rate != 0) soxr_delete(resamplers[slot].soxr);
  soxr_io_spec_t io = soxr_io_spec(SOXR_INT16_I, SOXR_INT16_I);
  /* No dither: the same text must give the same bytes every time. */
  io.flags |= SOXR_NO_DITHER;
  soxr_quality_spec_t quality = soxr_quality_spec(SOXR_HQ, 0);
  /* One thread: the utterance is a fork, and threads do not survive fork(). */
  soxr_runtime_spec_t runtime = soxr_runtime_spec(1);
  soxr_error_t error = NULL;
  soxr_t made = soxr_create(engine_rate, rate, 1, &error, &io, &quality, &runtime);
  if (error != NULL) {
    resamplers[slot].rate = 0;
    return NULL;
  }
  resamplers[slot].rate = rate;
  resamplers[slot].soxr = made;
  return made;
}

/* Writes all of `data` to `fd`; 0 when the reader is gone. */
static int write_fd(int fd, const void *data, size_t length) {
  const unsigned char *bytes = data;
  while (length > 0) {
    ssize_t written = write(fd, bytes, length);
    if (written < 0) {
      if (errno == EINTR) continue;
      return 0;
    }
    bytes += written;
    length -= (size_t)written;
  }
  return 1;
}

/* Reads exactly `length` bytes from `fd`; 0 at end of input or on error. */
static int read_fd(int fd, void *data, size_t length) {
  unsigned char *bytes = data;
  size_t done = 0;
  while (done < length) {
    ssize_t got = read(fd, bytes + done, length - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return 0;
    done += (size_t)got;
  }
  return 1;
}

/*
 * libespeak-ng keeps state from one utterance to the next (a language's intonation tunes
 * outlive a switch to another voice, timing carries over), so utterances served one after
 * another by one initialized library would differ from what the espeak-ng program says.
 * So this process never synthesizes: for each voice it keeps a template, a fork that loaded
 * that voice and nothing else, and each utterance runs in a fork of that template, which
 * starts from exactly the state the espeak-ng program has after `-v VOICE`. A fork costs a
 * fraction of a millisecond; starting espeak-ng costs about 6 ms.
 *
 * Only one utterance runs at a time: while it does, this process waits on the template's
 * status pipe and the utterance process alone reads stdin (for a cancel frame).
 */
#define MAX_TEMPLATES 8
/* How much lower an utterance process's scheduling priority is than the engine's. */
#define UTTERANCE_NICE 5

struct template {
  char voice[256];
  pid_t pid; /* 0: free slot */
  int request_fd;
  int status_fd;
  unsigned long used;
};

static struct template templates[MAX_TEMPLATES];
static unsigned long use_clock;

static void drop_template(struct template *t) {
  close(t->request_fd);
  close(t->status_fd);
  kill(t->pid, SIGKILL); /* reaped automatically: SIGCHLD is ignored here */
  t->pid = 0;
}

static void template_main(pid_t engine, int request_fd, int status_fd, const char *voice) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != engine) _exit(7);
  signal(SIGCHLD, SIG_DFL);
  int voice_ok = load_voice(voice);
  unsigned char *payload = NULL;
  size_t capacity = 0;
  for (;;) {
    unsigned char header[HEADER_BYTES];
    if (!read_fd(request_fd, header, HEADER_BYTES)) _exit(0);
    uint32_t id = get_u32(header + 1);
    uint32_t length = get_u32(header + 5);
    if (length + 1u > capacity) {
      free(payload);
      capacity = length + 1u;
      payload = malloc(capacity);
      if (payload == NULL) _exit(6);
    }
    if (!read_fd(request_fd, payload, length)) _exit(4);
    uint32_t rate = get_u32(payload + 4);
    soxr_t pristine = resampler_for(rate);
    pid_t self = getpid();
    pid_t utterance = fork();
    if (utterance == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != self) _exit(7);
      /*
       * Synthesis runs UTTERANCE_NICE levels below the engine (so below the service that
       * started it): the service's event loop, which accepts connections, hands out engines
       * and forwards audio, then gets a CPU first when both want one. Without it, under a
       * closed loop of 100 streams on 2 cores, first audio's p99 drifted above 1.2 times
       * the queueing bound (bench/README.md); the work done is the same.
       */
      setpriority(PRIO_PROCESS, 0, getpriority(PRIO_PROCESS, 0) + UTTERANCE_NICE);
      resampler = pristine;
      if (!voice_ok) send_error(id, "unknown voice");
      else if (rate != 0 && rate != engine_rate && resampler == NULL)
        send_error(id, "unsupported output rate");
      else speak(id, payload, length);
      _exit(0);
    }
    int status = 0;
    if (utterance < 0) {
      send_error(id, "fork failed");
    } else {
      while (waitpid(utterance, &status, 0) < 0 && errno == EINTR) {
      }
      /* The utterance wrote whole frames or died; the request ends with an error frame. */
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) send_error(id, "synthesis crashed");
    }
    if (!write_fd(status_fd, "d", 1)) _exit(0);
  }
}

static struct template *template_for(const char *voice) {
  struct template *slot = &templates[0];
  for (int i = 0; i < MAX_TEMPLATES; i++) {
    struct template *t = &templates[i];
    if (t->pid != 0 && strcmp(t->voice, voice) == 0) return t;
    if (t->pid == 0 || (slot->pid != 0 && t->used < slot->used)) slot = t;
  }
  if (slot->pid != 0) drop_template(slot);
  int request[2], status[2];
  if (pipe(request) != 0) return NULL;
  if (pipe(status) != 0) {
    close(request[0]);
    close(request[1]);
    return NULL;
  }
  pid_t engine = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    /* Other templates' pipes must not stay open here, or they would never see end of input. */
    for (int i = 0; i < MAX_TEMPLATES; i++) {
      if (templates[i].pid != 0) {
        close(templates[i].request_fd);
        close(templates[i].status_fd);
      }
    }
    close(request[1]);
    close(status[0]);
    template_main(engine, request[0], status[1], voice);
  }
  close(request[0]);
  close(status[1]);
  if (pid < 0) {
    close(request[1]);
    close(status[0]);
    return NULL;
  }
  strcpy(slot->voice, voice);
  slot->pid = pid;
  slot->request_fd = request[1];
  slot->status_fd = status[0];
  return slot;
}

static void serve(uint32_t id, unsigned char *payload, uint32_t length) {
  char voice[256];
  if (!parse_voice(id, payload, length, voice)) return;
  unsigned char header[HEADER_BYTES];
  header[0] = 'S';
  put_u32(header + 1, id);
  put_u32(header + 5, length);
  /* A template that died while idle is replaced once. */
  for (int attempt = 0; attempt < 2; attempt++) {
    struct template *t = template_for(voice);
    if (t == NULL) break;
    t->used = ++use_clock;
    if (write_fd(t->request_fd, header, HEADER_BYTES) && write_fd(t->request_fd, payload, length)) {
      char done;
      if (read_fd(t->status_fd, &done, 1)) return;
      drop_template(t);
      send_error(id, "synthesis crashed");
      return;
    }
    drop_template(t);
  }
  send_error(id, "could not start synthesis");
}

/*
 * `awp-espeak-engine --resample FROM TO`: 16-bit mono PCM on stdin resampled from FROM to
 * TO Hz by the same resampler set-up an utterance uses, to stdout. It exists for the
 * resampler's quality test (a sine sweep cannot be spoken).
 */
static int resample_main(const char *from, const char *to) {
  engine_rate = (unsigned int)atoi(from);
  soxr_t made = resampler_for((uint32_t)atoi(to));
  if (made == NULL) return 2;
  short in[4096];
  short out[4 * 4096];
  size_t held = 0; /* bytes of `in` read and not yet resampled */
  for (;;) {
    ssize_t got = read(STDIN_FILENO, (unsigned char *)in + held, sizeof in - held);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return 4;
    size_t samples = (held + (size_t)(got > 0 ? got : 0)) / 2;
    int end = got == 0;
    const short *input = end ? NULL : in;
    size_t used = 0;
    for (;;) {
      size_t consumed = 0, produced = 0;
      if (soxr_process(made, input == NULL ? NULL : input + used, input == NULL ? 0 : samples - used,
                       &consumed, out, sizeof out / sizeof out[0], &produced) != NULL)
        return 3;
      used += consumed;
      if (!write_fd(STDOUT_FILENO, out, produced * 2)) return 3;
      if ((input == NULL || used >= samples) && produced < sizeof out / sizeof out[0]) break;
    }
    if (end) return 0;
    /* An odd byte waits for its partner. */
    held = (held + (size_t)got) % 2;
    if (held) ((unsigned char *)in)[0] = ((unsigned char *)in)[samples * 2];
  }
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "--resample") == 0) return resample_main(argv[2], argv[3]);
  signal(SIGPIPE, SIG_IGN);
  signal(SIGCHLD, SIG_IGN);
  int rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, NULL, 0);
  if (rate <= 0) {
    fprintf(stderr, "awp-espeak-engine: espeak-ng could not be initialized\n");
    return 1;
  }
  espeak_SetSynthCallback(on_audio);
  engine_rate = (unsigned int)rate;
  unsigned char ready[8];
  put_u32(ready, (uint32_t)rate);
  put_u32(ready + 4, PROTOCOL_VERSION);
  send_frame('R', 0, ready, 8);

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
