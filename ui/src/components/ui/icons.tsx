// Inline SVG icons for the top bar and tag bar: no icon font or emoji needed, so they look the
// same on every system (emoji such as 🔒 or ⛶ are missing from many Linux and Windows fonts).
import type { ReactNode } from 'react';

const Svg = ({ children, size = 18 }: { children: ReactNode; size?: number }) => (
  <svg className="icon" width={size} height={size} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={2} strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
    {children}
  </svg>
);

export const IconMenu = () => <Svg><path d="M4 6h16M4 12h16M4 18h16" /></Svg>;
export const IconSearch = () => <Svg><circle cx="11" cy="11" r="7" /><path d="m20 20-3.5-3.5" /></Svg>;
export const IconLock = () => <Svg><rect x="5" y="11" width="14" height="10" rx="2" /><path d="M8 11V7a4 4 0 0 1 8 0v4" /></Svg>;
export const IconTheme = () => <Svg><circle cx="12" cy="12" r="9" /><path d="M12 3a9 9 0 0 0 0 18z" fill="currentColor" /></Svg>;
export const IconFullscreen = () => <Svg><path d="M4 9V4h5M20 9V4h-5M4 15v5h5M20 15v5h-5" /></Svg>;
export const IconClip = ({ size = 14 }: { size?: number }) => <Svg size={size}><path d="m21 11-8.5 8.5a5 5 0 0 1-7-7L14 4a3.5 3.5 0 0 1 5 5l-8.5 8.5a2 2 0 0 1-3-3L15 7" /></Svg>;
export const IconPlus = () => <Svg><path d="M12 5v14M5 12h14" /></Svg>;
export const IconChevronDown = ({ size = 16 }: { size?: number }) => <Svg size={size}><path d="m6 9 6 6 6-6" /></Svg>;
export const IconChevronRight = ({ size = 14 }: { size?: number }) => <Svg size={size}><path d="m9 6 6 6-6 6" /></Svg>;
export const IconClose = ({ size = 12 }: { size?: number }) => <Svg size={size}><path d="M6 6l12 12M18 6 6 18" /></Svg>;
export const IconBug = () => <Svg><rect x="8" y="6" width="8" height="14" rx="4" /><path d="M12 10v10M8 13H4M20 13h-4M9 6 7 3M15 6l2-3M8 18l-3 2M16 18l3 2M8 9 5 7M16 9l3-2" /></Svg>;
export const IconFeedback = () => <Svg><path d="M21 15a2 2 0 0 1-2 2H7l-4 4V5a2 2 0 0 1 2-2h14a2 2 0 0 1 2 2z" /><path d="M8 9h8M8 13h5" /></Svg>;
export const IconStar = () => <Svg><path d="m12 3 2.8 5.7 6.2.9-4.5 4.4 1.1 6.2L12 17.3 6.4 20.2l1.1-6.2L3 9.6l6.2-.9z" /></Svg>;
