// An error boundary that shows `fallback` in place of its children once one of them has thrown:
// used where a lazily fetched chunk may be unreachable (a tab opened offline, the signed-in
// screens when the server went away mid-sign-in), so the screen says why instead of going blank.
import { Component, type ReactNode } from 'react';

export class FallbackBoundary extends Component<{ fallback: ReactNode; children: ReactNode }, { failed: boolean }> {
  state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  render() {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}
