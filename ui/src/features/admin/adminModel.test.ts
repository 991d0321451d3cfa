// The administration screen's pure helpers: labels, the role rules used to show and hide controls,
// the lock clock and pairing countdown, the pairing expiry read either way, masking a password out
// of a message, the sentence for each bridge refusal code, and the confirmation and notice texts.
import { describe, expect, it } from 'vitest';
import { BridgeRefusal, adminSnapshot } from '../../transport/desktop';
import { confirmationFor, noticeFor, passwordNotice } from './adminActions';
import { LOCKED_MESSAGE, abilities, accountName, describeFailure, formatClock, formatCountdown, pairingExpiry, roleLabel, scrub } from './adminModel';
import { ADMIN_ID, PUB2_ID, PUB_ID, snapshotFixture } from './adminTestkit';

const snapshot = adminSnapshot(snapshotFixture());
const [owner, admin, pub] = snapshot.accounts;

describe('labels and rules', () => {
  it('names roles and accounts', () => {
    expect([roleLabel('owner'), roleLabel('administrator'), roleLabel('publisher'), roleLabel(null)]).toEqual(['Owner', 'Administrator', 'Publisher', '—']);
    expect(accountName(pub)).toBe('Pia Publisher (pia)');
    expect(accountName({ displayName: '', username: 'x' })).toBe('x');
    expect(accountName(undefined)).toBe('—');
  });

  it('lets the Owner do everything, an Administrator Publisher-kind accounts, a Publisher nothing', () => {
    const o = abilities({ username: 'olivia', role: 'owner', lockAtMs: 1 });
    expect([o.manageAccount(admin), o.manageDevices(owner), o.transferOwnership, o.assignPublisher]).toEqual([true, true, true, true]);
    const a = abilities({ username: 'adam', role: 'administrator', lockAtMs: 1 });
    expect([a.manageAccount(admin), a.manageAccount(pub), a.manageDevices(owner), a.manageDevices(admin), a.manageDevices(pub)]).toEqual([false, true, false, true, true]);
    expect([a.transferOwnership, a.assignPublisher, a.createKinds]).toEqual([false, true, ['publisher']]);
    const p = abilities({ username: 'pia', role: 'publisher', lockAtMs: 1 });
    expect([p.manageAccount(pub), p.manageDevices(pub), p.assignPublisher, p.verifyAudit, p.createKinds]).toEqual([false, false, false, false, []]);
    expect(abilities(null).createKinds).toEqual([]);
  });
});

describe('time', () => {
  it('formats the lock time as local HH:MM', () => {
    expect(formatClock(new Date(2026, 0, 5, 9, 7).getTime())).toBe('09:07');
    expect(formatClock(0)).toBe('—');
    expect(formatClock(Number.NaN)).toBe('—');
  });

  it('counts down in whole seconds, rounding up, and ends at zero', () => {
    expect(formatCountdown(600_000)).toBe('10:00');
    expect(formatCountdown(599_001)).toBe('10:00');
    expect(formatCountdown(599_000)).toBe('9:59');
    expect(formatCountdown(1)).toBe('0:01');
    expect(formatCountdown(0)).toBeNull();
    expect(formatCountdown(-5)).toBeNull();
  });

  it('reads the pairing expiry as an epoch time, or as the time left when it is small', () => {
    const now = 1_800_000_000_000;
    expect(pairingExpiry(now + 600_000, now)).toBe(now + 600_000);
    expect(pairingExpiry(Number.NaN, now)).toBe(now);
    expect(pairingExpiry('soon', now)).toBe(now);
  });
});

describe('failures', () => {
  it('masks secrets out of a message', () => {
    expect(scrub('bad pw hunter2!', ['hunter2', ''])).toBe('bad pw •••!');
  });

  it('gives each refusal code its sentence', () => {
    const r = (code: ConstructorParameters<typeof BridgeRefusal>[1], message: string, secs: number | null = null) => describeFailure(new BridgeRefusal(message, code, secs));
    expect(r('rejected', 'Only the Owner can do this.')).toBe('Only the Owner can do this.');
    expect(r('rejected', '')).toBe('The server refused this.');
    expect(r('locked', 'x')).toBe(LOCKED_MESSAGE);
    expect(r('rateLimited', 'Too many requests; try again in 1 s.', 1)).toBe('Too many attempts. Wait 1 second and try again.');
    expect(r('rateLimited', '12')).toBe('Too many attempts. Wait 12 seconds and try again.');
    expect(r('rateLimited', 'slow down')).toBe('Too many attempts. Wait a moment and try again.');
    expect(r('invalid', 'displayName too long')).toBe('The server refused the request as invalid: displayName too long');
    expect(r('unavailable', 'server restarting')).toMatch(/^Administration is unavailable right now \(server restarting\)/);
    expect(r('forbidden', 'x')).toBe('This window may not use administration.');
    expect(describeFailure(new Error('boom s3cret'), ['s3cret'])).toBe('boom •••');
    expect(describeFailure('weird')).toBe('The request failed.');
  });
});

describe('confirmations and notices', () => {
  it('confirms only destructive actions, naming what changes', () => {
    expect(confirmationFor({ kind: 'setActive', accountId: PUB_ID, active: true }, snapshot)).toBeNull();
    expect(confirmationFor({ kind: 'rename', accountId: PUB_ID, displayName: 'x' }, snapshot)).toBeNull();
    expect(confirmationFor({ kind: 'setActive', accountId: PUB_ID, active: false }, snapshot)?.message).toContain('Pia Publisher (pia) can no longer sign in');
    expect(confirmationFor({ kind: 'revoke', deviceId: 'dev_1' }, snapshot)?.message).toContain('NOC laptop 3 (noc-lt-03) of Pia Publisher (pia)');
    expect(confirmationFor({ kind: 'assignPublisher', accountId: PUB2_ID }, snapshot)?.message).toBe('The Publisher role moves from Pia Publisher (pia) to Pete Spare (pete).');
    expect(confirmationFor({ kind: 'assignPublisher', accountId: null }, snapshot)?.title).toBe('Remove the Publisher?');
    expect(confirmationFor({ kind: 'transfer', accountId: ADMIN_ID }, snapshot)?.message).toMatch(/^Adam Admin \(adam\) becomes the Owner/);
    expect(confirmationFor({ kind: 'resetPassword', accountId: PUB2_ID }, snapshot)?.message).toContain('its 0 active paired devices are revoked');
  });

  it('reports results in words', () => {
    expect(noticeFor({ kind: 'auditVerify' }, { ok: false, entries: 9 }, snapshot)).toEqual({ text: 'Audit log: 9 entries, chain verification FAILED. Keep the data directory as it is and report it.', error: true });
    expect(noticeFor({ kind: 'revoke', deviceId: 'dev_2' }, { revoked: false }, snapshot).text).toBe('The device was already revoked.');
    expect(noticeFor({ kind: 'create', username: 'pam', displayName: 'Pam', accountKind: 'publisher' }, {}, snapshot).text).toMatch(/^Account pam created/);
    expect(passwordNotice(pub, { passwordSet: true, devicesRevoked: 2 })).toBe('Password set for Pia Publisher (pia); 2 paired devices revoked.');
    expect(passwordNotice(pub, { passwordSet: true, devicesRevoked: 0 })).toBe('Password set for Pia Publisher (pia).');
  });
});
