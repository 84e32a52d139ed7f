import { describe, expect, it } from 'vitest';
import {
  effectiveStatus,
  ONLINE_WINDOW_MS,
  SEEN_RESOLUTION_MS,
  shouldRecordSeen,
} from './runner-status.ts';

const now = 1_700_000_000_000;

describe('effectiveStatus', () => {
  it('shows the stored status of a runner seen within the last minute', () => {
    expect(effectiveStatus('idle', now - 1000, now)).toBe('idle');
    expect(effectiveStatus('active', now - ONLINE_WINDOW_MS, now)).toBe('active');
  });

  it('shows offline after a minute of silence, whatever was stored', () => {
    expect(effectiveStatus('idle', now - ONLINE_WINDOW_MS - 1, now)).toBe('offline');
    expect(effectiveStatus('active', now - 3_600_000, now)).toBe('offline');
  });

  it('keeps offline as stored by the zombie sweep', () => {
    expect(effectiveStatus('offline', now, now)).toBe('offline');
  });
});

describe('shouldRecordSeen', () => {
  it('writes at most once per resolution window, and always to lift offline', () => {
    expect(shouldRecordSeen('idle', now - 10, now)).toBe(false);
    expect(shouldRecordSeen('idle', now - SEEN_RESOLUTION_MS, now)).toBe(true);
    expect(shouldRecordSeen('offline', now, now)).toBe(true);
  });
});
