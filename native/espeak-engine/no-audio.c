/*
 * libpcaudio.so.0 for awp-espeak-engine: an audio-device library with no device.
 *
 * libespeak-ng needs libpcaudio for its playback modes, and libpcaudio brings PulseAudio,
 * ALSA and their dependencies along: 28 shared libraries, about 150 memory mappings. The
 * engine only ever asks for AUDIO_OUTPUT_SYNCHRONOUS (audio to a callback), which never
 * calls into libpcaudio, yet every utterance's fork and exit copied and tore down those
 * mappings. scripts/build-engine.sh builds this file as .cache/native/libpcaudio.so.0 and
 * links the engine against it first with its own directory as RUNPATH, so libespeak-ng's
 * need for libpcaudio.so.0 is met by this already loaded library. A device asked for
 * anyway is refused (no audio device), never played.
 */
#include <stddef.h>
#include <stdint.h>

struct audio_object;

struct audio_object *create_audio_device_object(const char *device, const char *application_name,
                                                const char *description) {
  (void)device;
  (void)application_name;
  (void)description;
  return NULL;
}

int audio_object_open(struct audio_object *object, int format, uint32_t rate, uint8_t channels) {
  (void)object;
  (void)format;
  (void)rate;
  (void)channels;
  return -1;
}

void audio_object_close(struct audio_object *object) { (void)object; }

void audio_object_destroy(struct audio_object *object) { (void)object; }

int audio_object_write(struct audio_object *object, const void *data, size_t bytes) {
  (void)object;
  (void)data;
  (void)bytes;
  return -1;
}

int audio_object_drain(struct audio_object *object) {
  (void)object;
  return -1;
}

int audio_object_flush(struct audio_object *object) {
  (void)object;
  return -1;
}

const char *audio_object_strerror(struct audio_object *object, int error) {
  (void)object;
  (void)error;
  return "no audio device";
}
