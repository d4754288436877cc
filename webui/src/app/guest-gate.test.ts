import { describe, expect, it } from 'vitest';
import { guestGateRedirect } from './guest-gate';

const open = {
  maintenance: false,
  show_landing: true,
  allow_registration: true,
  allow_password_recovery: true,
};

describe('guest gate', () => {
  it('lets every public page through when everything is switched on', () => {
    for (const path of ['/', '/plans', '/login', '/register', '/password-recovery', '/dashboard/home']) {
      expect(guestGateRedirect(path, open)).toBeNull();
    }
  });

  it('sends every page to /maintenance while maintenance is on', () => {
    const config = { ...open, maintenance: true };
    for (const path of ['/', '/plans', '/login', '/register', '/password-recovery', '/dashboard/peers', '/nope']) {
      expect(guestGateRedirect(path, config)).toBe('/maintenance');
    }
    expect(guestGateRedirect('/maintenance', config)).toBeNull();
  });

  it('sends to /maintenance when the config load answered 503', () => {
    expect(guestGateRedirect('/login', 'maintenance')).toBe('/maintenance');
    expect(guestGateRedirect('/', 'maintenance')).toBe('/maintenance');
    expect(guestGateRedirect('/maintenance', 'maintenance')).toBeNull();
  });

  it('keeps the manager area reachable during maintenance so admins can switch it off', () => {
    expect(guestGateRedirect('/manager/login', { ...open, maintenance: true })).toBeNull();
  });

  it('sends /password-recovery to the landing or to login when recovery is off', () => {
    expect(guestGateRedirect('/password-recovery', { ...open, allow_password_recovery: false })).toBe('/');
    expect(
      guestGateRedirect('/password-recovery', { ...open, allow_password_recovery: false, show_landing: false }),
    ).toBe('/login');
  });

  it('sends /register to login when registration is off', () => {
    expect(guestGateRedirect('/register', { ...open, allow_registration: false })).toBe('/login');
  });

  it('sends the landing pages to login when the landing is off, but keeps login', () => {
    const config = { ...open, show_landing: false };
    expect(guestGateRedirect('/', config)).toBe('/login');
    expect(guestGateRedirect('/plans', config)).toBe('/login');
    expect(guestGateRedirect('/plans/', config)).toBe('/login');
    expect(guestGateRedirect('/login', config)).toBeNull();
  });

  it('keeps /register and /password-recovery under their own switches when the landing is off', () => {
    const config = { ...open, show_landing: false };
    expect(guestGateRedirect('/register', config)).toBeNull();
    expect(guestGateRedirect('/password-recovery', config)).toBeNull();
  });

  it('sends /maintenance home when maintenance is off', () => {
    expect(guestGateRedirect('/maintenance', open)).toBe('/');
    expect(guestGateRedirect('/maintenance', { ...open, show_landing: false })).toBe('/login');
  });

  it('lets the email links through whatever the landing switch', () => {
    const config = { ...open, show_landing: false };
    expect(guestGateRedirect('/password-reset', config)).toBeNull();
    expect(guestGateRedirect('/verify-email', config)).toBeNull();
  });
});
