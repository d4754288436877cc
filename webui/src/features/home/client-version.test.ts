import { describe, expect, it } from 'vitest';
import { compareVersions, isNewerClient } from './client-version';

describe('client version', () => {
  it('compares dotted versions numerically', () => {
    expect(compareVersions('1.10.0', '1.9.2')).toBe(1);
    expect(compareVersions('v2.0', '2.0.0')).toBe(0);
    expect(compareVersions('1.0.0-beta', '1.0.1')).toBe(-1);
  });

  it('announces only a version newer than the one the web build knows', () => {
    expect(isNewerClient('1.2.0', '1.1.9')).toBe(true);
    expect(isNewerClient('1.1.9', '1.1.9')).toBe(false);
    expect(isNewerClient('1.0.0', '1.1.9')).toBe(false);
    expect(isNewerClient('', '1.0.0')).toBe(false);
  });
});
