// Line icons for the nav rail (inline SVG: no icon font, nothing fetched).
export type IconName =
  'connect' | 'editor' | 'charts' | 'clients' | 'inspector' | 'runs' | 'campaigns' | 'rewards' | 'regressions';

const PATHS: Record<IconName, string> = {
  connect: 'M7 7h4v4H7zM13 13h4v4h-4zM11 9h3a2 2 0 0 1 2 2v2M9 11v3a2 2 0 0 0 2 2h2',
  editor: 'M8 6l-5 6 5 6M16 6l5 6-5 6M13.5 4l-3 16',
  charts: 'M4 20V4M4 20h16M7 16l4-5 3 3 5-7',
  clients: 'M4 5h16v5H4zM4 14h16v5H4zM7 7.5h.01M7 16.5h.01',
  inspector: 'M11 18a7 7 0 1 1 0-14 7 7 0 0 1 0 14zM16 16l4.5 4.5M8 11h6M11 8v6',
  runs: 'M4 6h16M4 12h16M4 18h10',
  campaigns: 'M5 19V9M10 19V5M15 19v-7M20 19v-4M3 19h18',
  rewards: 'M12 3l2.6 5.6 6 .7-4.5 4.1 1.2 6L12 16.5 6.7 19.4l1.2-6L3.4 9.3l6-.7z',
  regressions: 'M3 8h18M3 16h18M6 4l3 8-3 8M14 4v16M18 10l2 2-2 2',
};

export function Icon({ name }: { name: IconName }) {
  return (
    <svg
      viewBox="0 0 24 24"
      width="20"
      height="20"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.6"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
    >
      <path d={PATHS[name]} />
    </svg>
  );
}
