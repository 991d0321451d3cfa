// @vitest-environment jsdom
// Compact and Enhance (transforms.ts) on rich bodies: filler phrases go and plain words replace
// wordy ones; dates, times, durations, outage and resolved words, percentages and extension
// numbers are highlighted and imperative words bolded; markup, links, existing highlights and
// image placeholder lines are left alone; both off gives the original back.
import { describe, expect, it } from 'vitest';
import { compact, enhance, transformBody } from './transforms';

describe('compact', () => {
  it('strips filler phrases and shortens wordy ones', () => {
    expect(compact('Please note that the VPN is down at this time. We apologize for any inconvenience.')).toBe('The VPN is down now.');
    expect(compact('In order to restore mail, due to the fact that the disk failed, we will reboot as soon as possible.')).toBe('To restore mail, because the disk failed, we will reboot ASAP.');
  });

  it('keeps markup, links and placeholder lines', () => {
    expect(compact('<b>Urgent:</b> please note that the link is <a href="https://x.example/">in order to</a><br>[image 1]'))
      .toBe('<b>Urgent:</b> the link is <a href="https://x.example/" rel="noopener noreferrer">in order to</a><br>[image 1]');
  });
});

describe('enhance', () => {
  it('highlights dates, times, durations, outage and resolved words, numbers, and bolds musts', () => {
    expect(enhance('Mail outage on Friday 8 Mar 2026 from 14:30 for 2 hours; 95% of users, call ext. 4411. You must reboot. Now resolved.')).toBe(
      'Mail <span data-hl="warning">outage</span> on <span data-hl="deadline">Friday</span> <span data-hl="deadline">8 Mar 2026</span> from '
      + '<span data-hl="deadline">14:30</span> for <span data-hl="deadline">2 hours</span>; <span data-hl="number">95%</span> of users, call '
      + '<span data-hl="number">ext. 4411</span>. You <b>must</b> reboot. Now <span data-hl="success">resolved</span>.',
    );
  });

  it('leaves formatted text, links and placeholders alone', () => {
    const body = '<span data-hl="service">Friday</span> <b>outage</b> <a href="https://x.example/" rel="noopener noreferrer">down</a><br>[image 1]';
    expect(enhance(body)).toBe(body);
  });
});

describe('transformBody', () => {
  it('applies Compact then Enhance, and nothing when both are off', () => {
    const original = 'Please note that mail is down.';
    expect(transformBody(original, { compact: false, enhance: false })).toBe(original);
    expect(transformBody(original, { compact: true, enhance: false })).toBe('Mail is down.');
    expect(transformBody(original, { compact: true, enhance: true })).toBe('Mail is <span data-hl="warning">down</span>.');
  });
});
