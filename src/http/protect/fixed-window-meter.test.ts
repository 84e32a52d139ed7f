import { describe, expect, it } from 'vitest';
import { FixedWindowMeter } from './fixed-window-meter.ts';

describe('FixedWindowMeter', () => {
  it('allows up to the budget within one window, then refuses', () => {
    const meter = new FixedWindowMeter({ windowMs: 60_000 });
    const t0 = 1_200_000; // a window boundary
    expect(meter.hit('ip:1.2.3.4', 3, t0)).toEqual({
      allowed: true,
      retryAfterSeconds: 60,
      remaining: 2,
    });
    expect(meter.hit('ip:1.2.3.4', 3, t0 + 1).remaining).toBe(1);
    expect(meter.hit('ip:1.2.3.4', 3, t0 + 2)).toMatchObject({ allowed: true, remaining: 0 });
    expect(meter.hit('ip:1.2.3.4', 3, t0 + 3)).toMatchObject({ allowed: false, remaining: 0 });
    expect(meter.hit('ip:1.2.3.4', 3, t0 + 4).allowed).toBe(false);
  });

  it('counts each key separately', () => {
    const meter = new FixedWindowMeter({ windowMs: 1000 });
    expect(meter.hit('a', 1, 0).allowed).toBe(true);
    expect(meter.hit('a', 1, 1).allowed).toBe(false);
    expect(meter.hit('b', 1, 2).allowed).toBe(true);
  });

  it('opens a fresh window once the old one has fully elapsed', () => {
    const meter = new FixedWindowMeter({ windowMs: 1000 });
    meter.hit('k', 1, 5000);
    expect(meter.hit('k', 1, 5999).allowed).toBe(false);
    expect(meter.hit('k', 1, 6000)).toEqual({ allowed: true, retryAfterSeconds: 1, remaining: 0 });
    expect(meter.hit('k', 1, 6500).allowed).toBe(false);
  });

  it('does not extend the window while a refused caller keeps hammering', () => {
    const meter = new FixedWindowMeter({ windowMs: 10_000 });
    for (let t = 0; t < 10_000; t += 100) meter.hit('k', 2, t);
    expect(meter.hit('k', 2, 10_000).allowed).toBe(true);
  });

  it('reports Retry-After as whole seconds until the window ends, at least 1', () => {
    const meter = new FixedWindowMeter({ windowMs: 60_000 });
    meter.hit('k', 0, 0);
    expect(meter.hit('k', 0, 0).retryAfterSeconds).toBe(60);
    expect(meter.hit('k', 0, 1).retryAfterSeconds).toBe(60);
    expect(meter.hit('k', 0, 1000).retryAfterSeconds).toBe(59);
    expect(meter.hit('k', 0, 58_001).retryAfterSeconds).toBe(2);
    expect(meter.hit('k', 0, 59_000).retryAfterSeconds).toBe(1);
    expect(meter.hit('k', 0, 59_999).retryAfterSeconds).toBe(1);

    const short = new FixedWindowMeter({ windowMs: 250 });
    expect(short.hit('k', 0, 0)).toEqual({ allowed: false, retryAfterSeconds: 1, remaining: 0 });
  });

  it("reads the current window's count without counting", () => {
    const meter = new FixedWindowMeter({ windowMs: 1000 });
    expect(meter.used('k', 0)).toBe(0);
    meter.hit('k', 5, 100);
    meter.hit('k', 5, 200);
    expect(meter.used('k', 300)).toBe(2);
    expect(meter.used('k', 300)).toBe(2);
    expect(meter.used('k', 1000)).toBe(0);
    expect(meter.size).toBe(1);
  });

  it('refuses everything on a zero budget', () => {
    const meter = new FixedWindowMeter({ windowMs: 1000 });
    expect(meter.hit('k', 0, 0).allowed).toBe(false);
  });

  it('uses the injected clock when no time is passed', () => {
    let now = 0;
    const meter = new FixedWindowMeter({ windowMs: 2000, clock: () => now });
    expect(meter.hit('k', 1).allowed).toBe(true);
    now = 1500;
    expect(meter.hit('k', 1)).toEqual({ allowed: false, retryAfterSeconds: 1, remaining: 0 });
    now = 2000;
    expect(meter.hit('k', 1).allowed).toBe(true);
  });

  it('aligns windows to the clock, so a late first hit gets a short Retry-After', () => {
    const meter = new FixedWindowMeter({ windowMs: 60_000 });
    expect(meter.hit('k', 1, 119_500)).toEqual({
      allowed: true,
      retryAfterSeconds: 1,
      remaining: 0,
    });
    expect(meter.hit('k', 1, 119_900).allowed).toBe(false);
    expect(meter.hit('k', 1, 120_000)).toMatchObject({ allowed: true, retryAfterSeconds: 60 });
  });

  it('starts a new window when the clock steps backwards', () => {
    const meter = new FixedWindowMeter({ windowMs: 60_000 });
    meter.hit('k', 1, 100_000);
    expect(meter.hit('k', 1, 100_001).allowed).toBe(false);
    expect(meter.hit('k', 1, 50_000)).toEqual({
      allowed: true,
      retryAfterSeconds: 10,
      remaining: 0,
    });
  });

  it('keeps elapsed entries while below the key threshold', () => {
    const meter = new FixedWindowMeter({ windowMs: 1000, maxKeys: 10 });
    for (let i = 0; i < 10; i++) meter.hit(`k${i}`, 1, 0);
    meter.hit('late', 1, 5000);
    // 11 keys > 10: the ten elapsed ones go, the live one stays.
    expect(meter.size).toBe(1);
  });

  it('never prunes entries whose window is still running', () => {
    const meter = new FixedWindowMeter({ windowMs: 1000, maxKeys: 10 });
    for (let i = 0; i < 25; i++) meter.hit(`k${i}`, 1, i);
    expect(meter.size).toBe(25);
    expect(meter.hit('k0', 1, 999).allowed).toBe(false);
  });

  it('keeps a key whose window rolled over into the current one', () => {
    const meter = new FixedWindowMeter({ windowMs: 1000, maxKeys: 2 });
    meter.hit('old', 1, 0);
    meter.hit('other', 1, 10);
    // 'old' rolls over into the window starting at 1000; 'other' stays in the elapsed one.
    meter.hit('old', 1, 1500);
    meter.hit('new', 1, 1600);
    expect(meter.size).toBe(2);
    expect(meter.hit('old', 1, 1700).allowed).toBe(false);
  });

  it('stays bounded under 200,000 distinct keys across two windows', () => {
    const windowMs = 60_000;
    const meter = new FixedWindowMeter({ windowMs });
    const perWindow = 100_000;
    let peak = 0;
    for (let i = 0; i < perWindow; i++) {
      meter.hit(`ip:a${i}`, 30, (i * windowMs) / perWindow / 2);
      peak = Math.max(peak, meter.size);
    }
    for (let i = 0; i < perWindow; i++) {
      meter.hit(`ip:b${i}`, 30, windowMs + (i * windowMs) / perWindow / 2);
      peak = Math.max(peak, meter.size);
    }
    // Never more than the threshold plus one window's worth of keys.
    expect(peak).toBeLessThanOrEqual(50_000 + perWindow);
    // All first-window keys have been dropped once the second window started.
    expect(meter.size).toBe(perWindow);
  });

  it('rejects a non-positive window or key threshold', () => {
    expect(() => new FixedWindowMeter({ windowMs: 0 })).toThrow(RangeError);
    expect(() => new FixedWindowMeter({ windowMs: 1000, maxKeys: 0 })).toThrow(RangeError);
  });
});
