// Small inline SVG icons that ship with the app, for the glyphs a Debian station without an emoji
// font draws as an empty box (the bell of "Sound on/off", the alarm clock). Each is decorative
// (aria-hidden, never focusable): the text beside it carries the meaning. They take the text
// colour (currentColor) and its size (1em).
import type { ReactNode, SVGProps } from 'react';

type IconProps = Omit<SVGProps<SVGSVGElement>, 'children'>;

function Icon({ children, className, ...rest }: IconProps & { children: ReactNode }) {
  return (
    <svg viewBox="0 0 24 24" width="1em" height="1em" fill="none" stroke="currentColor" strokeWidth={2} strokeLinecap="round" strokeLinejoin="round"
      aria-hidden="true" focusable="false" className={className ? `icon ${className}` : 'icon'} {...rest}>
      {children}
    </svg>
  );
}

/** A bell: alarm sound on. */
export function BellIcon(props: IconProps) {
  return (
    <Icon {...props} data-icon="bell">
      <path d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9" />
      <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
    </Icon>
  );
}

/** A bell struck through: alarm sound off. */
export function BellOffIcon(props: IconProps) {
  return (
    <Icon {...props} data-icon="bell-off">
      <path d="M8.7 3A6 6 0 0 1 18 8c0 2.7.6 4.6 1.3 6" />
      <path d="M17 17H3s3-2 3-9a4.7 4.7 0 0 1 .3-1.7" />
      <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
      <path d="m2 2 20 20" />
    </Icon>
  );
}

/** An alarm clock: a due alarm. */
export function AlarmClockIcon(props: IconProps) {
  return (
    <Icon {...props} data-icon="alarm-clock">
      <circle cx="12" cy="13" r="8" />
      <path d="M12 9v4l2 2" />
      <path d="M5 3 2 6" />
      <path d="m22 6-3-3" />
    </Icon>
  );
}
