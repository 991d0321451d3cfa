import { describe, expect, it } from 'vitest';
import { bodyToHtml, htmlToBody, severityColor } from './alerts';

describe('alert helpers', () => {
  it('maps severities to their colors, INFO by default', () => {
    expect(severityColor('ISSUE')).toBe('#d32f2f');
    expect(severityColor('MAINTENANCE')).toBe('#f9a825');
    expect(severityColor('RESOLVED')).toBe('#2e7d32');
    expect(severityColor(undefined)).toBe('#1565c0');
  });
  it('escapes the plain body into safe HTML and back', () => {
    const body = 'Line <script>x</script> & more\nsecond';
    const html = bodyToHtml(body);
    expect(html).toBe('Line &lt;script&gt;x&lt;/script&gt; &amp; more<br>second');
    expect(htmlToBody(html)).toBe(body);
    expect(htmlToBody('<p>a</p><ul><li>b</li></ul><img src=x onerror=alert(1)>')).toBe('a\nb');
  });
});
