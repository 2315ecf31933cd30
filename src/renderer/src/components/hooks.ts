// Small React hooks shared by the panels.
import { useEffect, useState } from 'react';

/** The current time, re-read every `ms` (for "5s ago" labels). */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const h = window.setInterval(() => setNow(Date.now()), ms);
    return () => window.clearInterval(h);
  }, [ms]);
  return now;
}
