"""The embedded speech-to-text sidecar: Whisper through faster-whisper (CTranslate2, CPU).

Started and supervised by the worker (src/stt/embedded/sidecar-client.ts); speaks one small
protocol over its stdin and stdout. stderr carries log lines only.

Protocol. Every message in either direction is one frame:

    u32 big-endian  header length H
    u32 big-endian  payload length P
    H bytes         header: one UTF-8 JSON object with an "op" field
    P bytes         payload: raw bytes (P may be 0)

Sidecar to worker:
    {"op": "ready", "model": dir, "load_ms": n, "multilingual": bool}
        once, after the model loaded (and a warm-up ran); nothing is read before it.
    {"op": "result", "id": n, "text": s, "language": s, "language_probability": f,
     "confidence": f | null, "duration_ms": n, "elapsed_ms": n, "window_ms": n,
     "window_retried": bool}
    {"op": "error", "id": n | null, "kind": "bad_request" | "internal", "message": s}

Worker to sidecar:
    {"op": "transcribe", "id": n, "language": s | null, "beam_size": n | null,
     "prompt": s | null}   payload: 16 kHz mono signed 16-bit little-endian PCM
    {"op": "shutdown"}     exit 0 after the current request

Requests are answered one at a time in order (one CPU-bound model). End of stdin means
shut down. Nothing here touches the network: the model is a local directory and
HF_HUB_OFFLINE=1 is set before faster_whisper is imported.

Encoder window. Whisper was trained on 30 s windows and faster-whisper pads every
utterance to one, so its encoder cost the same for a 2 s question as for 30 s of speech
(most of the time of a short utterance). CTranslate2 encodes a shorter window in
proportion, so an utterance is encoded in a window of its own length plus 2 s, never
shorter than --min-window-s (10 s by default; 30 restores the full window). Windows much
shorter than Whisper's own make it prone to looping on one word; an answer whose text is
that repetitive (gzip compression ratio over 2.4, Whisper's own threshold) is transcribed
again in the full window. docs/decisions.md, "Speech to text", has the measurements.
"""

import argparse
import json
import math
import os
import struct
import sys
import time

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

SAMPLE_RATE_HZ = 16000
MAX_HEADER_BYTES = 64 * 1024
# 10 minutes of audio; an utterance is seconds long, anything larger is a bug upstream.
MAX_PAYLOAD_BYTES = SAMPLE_RATE_HZ * 2 * 600
# Whisper's mel frames are 10 ms; its trained window is 30 s.
SAMPLES_PER_FRAME = 160
FULL_WINDOW_FRAMES = 3000
WINDOW_MARGIN_FRAMES = 200
REPETITIVE_COMPRESSION_RATIO = 2.4


def window_frames(samples, min_frames):
    """The encoder window for an utterance of `samples`: its length plus 2 s, at least
    `min_frames`, at most Whisper's 30 s."""
    content = -(-samples // SAMPLES_PER_FRAME)
    return min(FULL_WINDOW_FRAMES, max(min_frames, content + WINDOW_MARGIN_FRAMES))


def repetitive(segments):
    return any(s.compression_ratio > REPETITIVE_COMPRESSION_RATIO for s in segments)


def log(message):
    sys.stderr.write(f"stt-sidecar: {message}\n")
    sys.stderr.flush()


def read_exact(stream, size):
    chunks = []
    remaining = size
    while remaining > 0:
        chunk = stream.read(remaining)
        if not chunk:
            return None
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def read_frame(stream):
    prefix = read_exact(stream, 8)
    if prefix is None:
        return None
    header_len, payload_len = struct.unpack(">II", prefix)
    if header_len > MAX_HEADER_BYTES or payload_len > MAX_PAYLOAD_BYTES:
        raise ValueError(f"frame too large: header {header_len}, payload {payload_len}")
    header = read_exact(stream, header_len)
    payload = read_exact(stream, payload_len) if payload_len else b""
    if header is None or payload is None:
        return None
    return json.loads(header.decode("utf-8")), payload


def write_frame(stream, header, payload=b""):
    data = json.dumps(header, ensure_ascii=False).encode("utf-8")
    stream.write(struct.pack(">II", len(data), len(payload)) + data + payload)
    stream.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model-dir", required=True)
    parser.add_argument("--beam-size", type=int, default=5)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--compute-type", default="int8")
    parser.add_argument("--min-window-s", type=float, default=10.0)
    parser.add_argument("--no-warmup", action="store_true")
    args = parser.parse_args()

    # Imported after HF_HUB_OFFLINE is set; numpy comes with faster-whisper.
    import numpy as np
    from faster_whisper import WhisperModel

    class WindowedWhisper(WhisperModel):
        """faster-whisper with the encoder's input cut to `window` frames (it pads every
        segment to 30 s before encoding)."""

        window = FULL_WINDOW_FRAMES

        def encode(self, features):
            if features.shape[-1] > self.window:
                features = np.ascontiguousarray(features[..., : self.window])
            return super().encode(features)

    out = sys.stdout.buffer
    inp = sys.stdin.buffer
    started = time.monotonic()
    min_frames = round(min(max(args.min_window_s, 1.0), 30.0) * 100)
    model = WindowedWhisper(
        args.model_dir,
        device="cpu",
        compute_type=args.compute_type,
        cpu_threads=args.threads,
        num_workers=1,
        local_files_only=True,
    )
    multilingual = bool(model.model.is_multilingual)

    def decode(audio, window, language, beam_size, prompt):
        model.window = window
        segments, info = model.transcribe(
            audio,
            language=language if multilingual else "en",
            beam_size=beam_size or args.beam_size,
            # One decode per utterance: the fallback temperatures could re-decode up to
            # five times, and a voice agent needs a bounded answer time.
            temperature=0.0,
            # Each call is one utterance the agent's VAD cut; no history, no second VAD.
            condition_on_previous_text=False,
            vad_filter=False,
            initial_prompt=prompt or None,
        )
        return list(segments), info

    def transcribe(pcm, language, beam_size, prompt):
        audio = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
        window = window_frames(len(audio), min_frames)
        segments, info = decode(audio, window, language, beam_size, prompt)
        retried = window < FULL_WINDOW_FRAMES and repetitive(segments)
        if retried:
            window = FULL_WINDOW_FRAMES
            segments, info = decode(audio, window, language, beam_size, prompt)
        texts = []
        weighted_logprob = 0.0
        weight = 0.0
        for segment in segments:
            texts.append(segment.text)
            span = max(segment.end - segment.start, 0.01)
            weighted_logprob += segment.avg_logprob * span
            weight += span
        confidence = math.exp(weighted_logprob / weight) if weight > 0 else None
        text = " ".join(t.strip() for t in texts if t.strip())
        return text, info, confidence, window * 10, retried

    if not args.no_warmup:
        # The first call pays one-time allocation costs; pay them before "ready".
        transcribe(np.zeros(SAMPLE_RATE_HZ, dtype="<i2").tobytes(), "en", 1, None)

    write_frame(
        out,
        {
            "op": "ready",
            "model": args.model_dir,
            "load_ms": round((time.monotonic() - started) * 1000),
            "multilingual": multilingual,
        },
    )

    while True:
        try:
            frame = read_frame(inp)
        except (ValueError, UnicodeDecodeError, json.JSONDecodeError) as error:
            # The stream can no longer be trusted to be in sync: report and exit.
            write_frame(out, {"op": "error", "id": None, "kind": "bad_request", "message": str(error)})
            return 2
        if frame is None:
            return 0
        header, payload = frame
        op = header.get("op")
        if op == "shutdown":
            return 0
        if op != "transcribe":
            write_frame(out, {"op": "error", "id": header.get("id"), "kind": "bad_request", "message": f"unknown op {op!r}"})
            continue
        request_id = header.get("id")
        if len(payload) % 2 != 0:
            write_frame(out, {"op": "error", "id": request_id, "kind": "bad_request", "message": "odd PCM byte count"})
            continue
        began = time.monotonic()
        try:
            text, info, confidence, window_ms, retried = transcribe(
                payload, header.get("language"), header.get("beam_size"), header.get("prompt")
            )
        except Exception as error:  # noqa: BLE001 - any engine failure fails this request only
            log(f"transcription failed: {error!r}")
            write_frame(out, {"op": "error", "id": request_id, "kind": "internal", "message": repr(error)})
            continue
        write_frame(
            out,
            {
                "op": "result",
                "id": request_id,
                "text": text,
                "language": info.language,
                "language_probability": round(float(info.language_probability), 4),
                "confidence": None if confidence is None else round(confidence, 4),
                "duration_ms": round(len(payload) / 2 / SAMPLE_RATE_HZ * 1000),
                "elapsed_ms": round((time.monotonic() - began) * 1000),
                "window_ms": window_ms,
                "window_retried": retried,
            },
        )


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
