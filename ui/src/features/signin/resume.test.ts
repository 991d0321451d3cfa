// Which way a window that starts signed out resumes its session, and reading the navigation type.
import { describe, expect, it } from 'vitest';
import { navigationType, resumeOnStart } from './resume';

describe('resumeOnStart', () => {
  it('Relay Web always tries its cookie session', () => {
    for (const navigation of ['navigate', 'reload', null]) expect(resumeOnStart({ mode: 'relay-web', navigation, popout: false })).toBe('cookie');
  });

  it('the desktop main window uses the saved passphrase after a reload only', () => {
    expect(resumeOnStart({ mode: 'desktop', navigation: 'reload', popout: false })).toBe('saved-passphrase');
    expect(resumeOnStart({ mode: 'desktop', navigation: 'navigate', popout: false })).toBeNull();
    expect(resumeOnStart({ mode: 'desktop', navigation: null, popout: false })).toBeNull();
    expect(resumeOnStart({ mode: 'desktop', navigation: 'reload', popout: true })).toBeNull();
  });

  it('direct mode has nothing to resume from', () => {
    expect(resumeOnStart({ mode: 'direct', navigation: 'reload', popout: false })).toBeNull();
    expect(resumeOnStart({ mode: undefined, navigation: 'reload', popout: false })).toBeNull();
  });
});

describe('navigationType', () => {
  it('reads Navigation Timing and is null when it is missing or throws', () => {
    expect(navigationType({ getEntriesByType: () => [{ type: 'reload' }] as never })).toBe('reload');
    expect(navigationType({ getEntriesByType: () => [] })).toBeNull();
    expect(navigationType(undefined)).toBeNull();
    expect(navigationType({ getEntriesByType: () => { throw new Error('no'); } })).toBeNull();
  });
});
