// Where the sign-in screen of a browser on the data API sends the operator (./directAccess).
import { describe, expect, it } from 'vitest';
import { isAddressOrLocalhost, relayWebUrl } from './directAccess';

const ACCESS = { relayWeb: { port: 8091, host: 'noc-server.local' } };

describe('relayWebUrl', () => {
  it('keeps an address or localhost the browser already uses (the gateway accepts its addresses)', () => {
    expect(relayWebUrl(ACCESS, { hostname: '10.0.0.7' })).toBe('http://10.0.0.7:8091/');
    expect(relayWebUrl(ACCESS, { hostname: 'localhost' })).toBe('http://localhost:8091/');
    expect(relayWebUrl(ACCESS, { hostname: '[fe80::1]' })).toBe('http://[fe80::1]:8091/');
  });

  it('uses the server-given .local name for any other DNS name (the gateway refuses unknown hosts)', () => {
    expect(relayWebUrl(ACCESS, { hostname: 'relay-server.lan' })).toBe('http://noc-server.local:8091/');
  });

  it('is null when the server runs no Relay Web', () => {
    expect(relayWebUrl({ relayWeb: null }, { hostname: '10.0.0.7' })).toBeNull();
    expect(relayWebUrl(null, { hostname: '10.0.0.7' })).toBeNull();
  });

  it('tells addresses from names', () => {
    expect(isAddressOrLocalhost('192.168.1.20')).toBe(true);
    expect(isAddressOrLocalhost('relay.example')).toBe(false);
    expect(isAddressOrLocalhost('1.2.3.example')).toBe(false);
  });
});
