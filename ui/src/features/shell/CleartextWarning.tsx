// Relay Web runs over plain HTTP: say so wherever the operator works (status bar, sign-in).
export const CLEARTEXT_WARNING = 'Relay Web uses unencrypted HTTP — LAN/VPN only';

export function CleartextWarning({ testId }: { testId: string }) {
  return (
    <span className="cleartext-warning" data-testid={testId} role="note" title="Passphrase, session and data cross the network unencrypted. Never publish this port.">
      ⚠ {CLEARTEXT_WARNING}
    </span>
  );
}
