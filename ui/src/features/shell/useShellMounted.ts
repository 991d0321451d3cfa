// The signed-in shell reports its mount to the desktop shell (Transport.shellMounted, the
// recovery launcher's health link: app/desktop/src/launcher_link.rs). The transport makes it
// once per page; browsers and desktop popouts have no such report, so nothing happens there.
import { useEffect } from 'react';
import { useTransport } from '../../transport/context';

export function useShellMounted(): void {
  const transport = useTransport();
  useEffect(() => {
    transport.shellMounted?.();
  }, [transport]);
}
