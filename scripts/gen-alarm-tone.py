#!/usr/bin/env python3
# Generates the bundled alarm tone, ui/src/features/attention/alarm.mp3: the same four-tone
# pattern the WebAudio fallback plays (square-ish 880/1175/740/988 Hz tones, 120 ms each, 150 ms
# apart), then silence to 1.5 s; mono, 22.05 kHz, 48 kbit/s CBR, peak 0.3 of full scale (no
# clipping). Reproducible: the PCM is computed, and the encoder is the pinned PyPI `lameenc`.
#
# Run from the repository root (a throwaway venv; nothing is installed system-wide):
#   python3 -m venv /tmp/mp3venv && /tmp/mp3venv/bin/pip install lameenc==1.9.0 && /tmp/mp3venv/bin/python scripts/gen-alarm-tone.py
import math
import os
import struct
import sys

import lameenc

RATE = 22050
TONES_HZ = (880, 1175, 740, 988)
TONE_S = 0.120
STEP_S = 0.150
TOTAL_S = 1.5
PEAK = 0.3  # of full scale
FADE_S = 0.004  # a short ramp at each edge, so the tones do not click
HARMONICS = (1, 3, 5, 7)  # a band-limited square wave: odd harmonics at 1/n

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'ui', 'src', 'features', 'attention', 'alarm.mp3')


def square_ish(hz: float, t: float) -> float:
    s = sum(math.sin(2 * math.pi * hz * n * t) / n for n in HARMONICS if hz * n < RATE / 2)
    return s * (4 / math.pi) / 1.2  # the partial sum overshoots 1 a little; keep it under


def samples() -> list[int]:
    out = [0.0] * int(TOTAL_S * RATE)
    tone_n = int(TONE_S * RATE)
    fade_n = int(FADE_S * RATE)
    for i, hz in enumerate(TONES_HZ):
        start = int(i * STEP_S * RATE)
        for k in range(tone_n):
            env = min(1.0, k / fade_n, (tone_n - 1 - k) / fade_n)
            out[start + k] = PEAK * env * square_ish(hz, k / RATE)
    peak = max(abs(v) for v in out)
    assert peak < 0.5, f'peak {peak} too loud'
    return [round(v * 32767) for v in out]


def main() -> int:
    pcm = struct.pack(f'<{int(TOTAL_S * RATE)}h', *samples())
    enc = lameenc.Encoder()
    enc.set_bit_rate(48)
    enc.set_in_sample_rate(RATE)
    enc.set_channels(1)
    enc.set_quality(2)
    mp3 = bytes(enc.encode(pcm)) + bytes(enc.flush())
    assert len(mp3) <= 40 * 1024, f'{len(mp3)} bytes is over 40 KB'
    with open(OUT, 'wb') as f:
        f.write(mp3)
    print(f'wrote {os.path.normpath(OUT)}: {len(mp3)} bytes')
    return 0


if __name__ == '__main__':
    sys.exit(main())
