// The panels of the shell, in nav-rail order.
import type { IconName } from '../components/Icon';

export type PanelId =
  'connect' | 'editor' | 'charts' | 'clients' | 'inspector' | 'runs' | 'campaigns' | 'rewards' | 'regressions';

export const PANELS: readonly { id: PanelId; label: string; icon: IconName; key: string }[] = [
  { id: 'connect', label: 'Connect', icon: 'connect', key: '1' },
  { id: 'editor', label: 'Editor', icon: 'editor', key: '2' },
  { id: 'charts', label: 'Charts', icon: 'charts', key: '3' },
  { id: 'clients', label: 'Clients', icon: 'clients', key: '4' },
  { id: 'inspector', label: 'Inspector', icon: 'inspector', key: '5' },
  { id: 'runs', label: 'Runs', icon: 'runs', key: '6' },
  { id: 'campaigns', label: 'Campaigns', icon: 'campaigns', key: '7' },
  { id: 'rewards', label: 'Rewards', icon: 'rewards', key: '8' },
  { id: 'regressions', label: 'Regressions', icon: 'regressions', key: '9' },
];

export function isPanelId(s: string): s is PanelId {
  return PANELS.some((p) => p.id === s);
}
