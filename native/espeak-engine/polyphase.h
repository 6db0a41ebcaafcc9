/*
 * A polyphase FIR resampler for 16-bit mono PCM between two fixed rates, with its taps
 * computed once (a Kaiser-windowed sinc, one row of taps per phase).
 *
 * Output sample k lies at input position k * in_rate / out_rate; it is the dot product of
 * the input around that position with the row of taps for its fractional part, so the
 * filter is linear phase and needs no delay compensation: output 0 is input 0's instant,
 * and `n` input samples give round(n * out_rate / in_rate) output samples. Input before
 * the first sample and after the last is silence.
 *
 * The pass band ends at 0.9 and the stop band begins at 1.0 of the lower rate's Nyquist
 * frequency, attenuated by POLYPHASE_ATTENUATION_DB: nothing is imaged or aliased into the
 * audible band. The same design as the service's own resampler (media/polyphase-resampler.ts);
 * in C here, since it runs inside the engine's utterance process.
 *
 * Taps are shared (read-only) by every copy of a resampler; each copy has its own state.
 */
#ifndef AWP_POLYPHASE_H
#define AWP_POLYPHASE_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define POLYPHASE_ATTENUATION_DB 70.0
/*
 * Taps per phase are a multiple of this, the lanes of the dot product: independent sums,
 * so that the vector units are not waiting on one accumulator.
 */
#define POLYPHASE_LANES 32

typedef struct {
  unsigned in_rate, out_rate;
  uint64_t up, down; /* out_rate / gcd and in_rate / gcd */
  unsigned taps;     /* per phase; output k uses inputs floor(t) - half + 1 .. floor(t) + half */
  unsigned half;
  const float *table; /* up rows of `taps` */
  /* State: input samples from absolute index `first` on, `held` of them. */
  float *history;
  size_t held, capacity;
  int64_t first;
  uint64_t received, produced;
  int64_t next_whole; /* floor of the next output's input position */
  uint64_t next_phase; /* its fractional part, in 1 / up */
} polyphase_t;

static double polyphase_bessel_i0(double x) {
  double sum = 1.0, term = 1.0;
  for (int k = 1; k < 64; k++) {
    term *= (x / (2.0 * k)) * (x / (2.0 * k));
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

static uint64_t polyphase_gcd(uint64_t a, uint64_t b) {
  while (b != 0) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* Sets up `r` from in_rate to out_rate (its taps computed here); 0 when it cannot. */
static int polyphase_init(polyphase_t *r, unsigned in_rate, unsigned out_rate) {
  memset(r, 0, sizeof *r);
  if (in_rate == 0 || out_rate == 0) return 0;
  uint64_t g = polyphase_gcd(in_rate, out_rate);
  r->in_rate = in_rate;
  r->out_rate = out_rate;
  r->up = out_rate / g;
  r->down = in_rate / g;
  if (r->up > 4096) return 0;
  /* Cut-off and transition, as fractions of the input rate. */
  double lower = in_rate < out_rate ? in_rate : out_rate;
  double cutoff = 0.95 * (lower / 2.0) / in_rate;     /* middle of the transition */
  double transition = 0.1 * (lower / 2.0) / in_rate;  /* 0.9 to 1.0 of the lower Nyquist */
  double a = POLYPHASE_ATTENUATION_DB;
  double beta = 0.1102 * (a - 8.7);
  unsigned length = (unsigned)ceil((a - 7.95) / (14.36 * transition)) + 1;
  r->taps = (length + POLYPHASE_LANES - 1) / POLYPHASE_LANES * POLYPHASE_LANES;
  r->half = r->taps / 2;
  float *table = malloc(sizeof(float) * r->up * r->taps);
  if (table == NULL) return 0;
  for (uint64_t p = 0; p < r->up; p++) {
    float *row = table + p * r->taps;
    double sum = 0.0;
    for (unsigned j = 0; j < r->taps; j++) {
      /* Distance from output position to input sample, in input samples. */
      double d = (double)p / (double)r->up + (double)r->half - 1.0 - (double)j;
      double x = d / (double)r->half;
      double window = fabs(x) >= 1.0 ? 0.0 : polyphase_bessel_i0(beta * sqrt(1.0 - x * x));
      double arg = M_PI * 2.0 * cutoff * d;
      double sinc = d == 0.0 ? 1.0 : sin(arg) / arg;
      double tap = 2.0 * cutoff * sinc * window;
      row[j] = (float)tap;
      sum += tap;
    }
    /* Each phase passes a constant exactly. */
    for (unsigned j = 0; j < r->taps; j++) row[j] = (float)(row[j] / sum);
  }
  r->table = table;
  return 1;
}

static int polyphase_hold(polyphase_t *r, size_t more) {
  if (r->held + more <= r->capacity) return 1;
  size_t capacity = r->capacity == 0 ? 8192 : r->capacity;
  while (capacity < r->held + more) capacity *= 2;
  float *grown = realloc(r->history, capacity * sizeof(float));
  if (grown == NULL) return 0;
  r->history = grown;
  r->capacity = capacity;
  return 1;
}

#if defined(__x86_64__)
#include <immintrin.h>
static inline int polyphase_round(float y) { return _mm_cvtss_si32(_mm_set_ss(y)); }
#define POLYPHASE_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
static inline int polyphase_round(float y) { return (int)lrintf(y); }
#define POLYPHASE_CLONES
#endif

/* Eight floats, loaded from any float's alignment. */
typedef float polyphase_v8 __attribute__((vector_size(32), aligned(4)));

static inline __attribute__((always_inline)) short polyphase_sample(const polyphase_t *r,
                                                                    int64_t whole,
                                                                    uint64_t phase) {
  const float *row = r->table + phase * r->taps;
  const float *x = r->history + (whole - (int64_t)r->half + 1 - r->first);
  polyphase_v8 a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
  for (unsigned j = 0; j < r->taps; j += POLYPHASE_LANES) {
    a0 += *(const polyphase_v8 *)(row + j) * *(const polyphase_v8 *)(x + j);
    a1 += *(const polyphase_v8 *)(row + j + 8) * *(const polyphase_v8 *)(x + j + 8);
    a2 += *(const polyphase_v8 *)(row + j + 16) * *(const polyphase_v8 *)(x + j + 16);
    a3 += *(const polyphase_v8 *)(row + j + 24) * *(const polyphase_v8 *)(x + j + 24);
  }
  polyphase_v8 sum = (a0 + a1) + (a2 + a3);
  float y = ((sum[0] + sum[1]) + (sum[2] + sum[3])) + ((sum[4] + sum[5]) + (sum[6] + sum[7]));
  /* Clamped, then rounded to nearest without a branch on the sign. */
  y = y > 32767.0f ? 32767.0f : y < -32768.0f ? -32768.0f : y;
  return (short)polyphase_round(y);
}

/* Computes the next `count` output samples into `out`. */
POLYPHASE_CLONES
static size_t polyphase_fill(polyphase_t *r, short *out, size_t count) {
  uint64_t step_whole = r->down / r->up, step_phase = r->down % r->up;
  int64_t whole = r->next_whole;
  uint64_t phase = r->next_phase;
  for (size_t i = 0; i < count; i++) {
    out[i] = polyphase_sample(r, whole, phase);
    whole += (int64_t)step_whole;
    phase += step_phase;
    uint64_t carry = phase >= r->up;
    phase -= carry * r->up;
    whole += (int64_t)carry;
  }
  r->next_whole = whole;
  r->next_phase = phase;
  r->produced += count;
  return count;
}

/*
 * Takes `count` samples (NULL: the end of the input, which pads it with silence) and writes
 * what can be computed to `out` (room for `room` samples); returns how many it wrote, and
 * -1 when out of memory. Call again with count 0 while it fills `out`.
 */
static long polyphase_process(polyphase_t *r, const short *samples, size_t count, short *out,
                              size_t room) {
  int end = samples == NULL;
  if (r->history == NULL) {
    /* Silence before the first sample. */
    if (!polyphase_hold(r, r->half + count)) return -1;
    memset(r->history, 0, r->half * sizeof(float));
    r->held = r->half;
    r->first = -(int64_t)r->half;
  }
  if (end) {
    if (!polyphase_hold(r, r->half)) return -1;
    if (r->received + r->half > (uint64_t)(r->first + (int64_t)r->held)) {
      memset(r->history + r->held, 0, r->half * sizeof(float));
      r->held += r->half;
    }
  } else if (count > 0) {
    if (!polyphase_hold(r, count)) return -1;
    for (size_t i = 0; i < count; i++) r->history[r->held + i] = samples[i];
    r->held += count;
    r->received += count;
  }
  /* Outputs whose inputs are all here (at the end: all of them). */
  uint64_t limit;
  if (end) {
    limit = (r->received * r->up + r->down / 2) / r->down;
  } else {
    /* Output k needs inputs up to floor(k * down / up) + half, all received. */
    int64_t whole_limit = (int64_t)r->received - (int64_t)r->half;
    limit = whole_limit <= 0 ? 0 : ((uint64_t)whole_limit * r->up + r->down - 1) / r->down;
  }
  size_t due = limit > r->produced ? (size_t)(limit - r->produced) : 0;
  size_t written = polyphase_fill(r, out, due < room ? due : room);
  /* Drop what no later output needs. */
  int64_t needed = r->next_whole - (int64_t)r->half + 1;
  if (needed > r->first) {
    size_t drop = (size_t)(needed - r->first);
    if (drop > r->held) drop = r->held;
    memmove(r->history, r->history + drop, (r->held - drop) * sizeof(float));
    r->held -= drop;
    r->first += (int64_t)drop;
  }
  return (long)written;
}

#endif
