// Before any end-to-end spec: where the browser they drive is missing, the run fails with what to
// do — it never passes with every spec skipped. Skipping them is an explicit choice:
// AGENTJET_SKIP_E2E=1.
import { chromiumMissing, E2E_OPTED_OUT } from './harness';

export default function setup(): void {
  if (E2E_OPTED_OUT) {
    console.warn('end-to-end tests skipped: AGENTJET_SKIP_E2E=1');
    return;
  }
  const missing = chromiumMissing();
  if (missing) {
    throw new Error(
      `the end-to-end tests need Chromium: ${missing}.\n` +
        'Install it (Debian/Ubuntu: `sudo apt-get install chromium`), point AGENTJET_E2E_CHROMIUM at one, ' +
        'or skip these tests explicitly with AGENTJET_SKIP_E2E=1 (e.g. `AGENTJET_SKIP_E2E=1 npm test`).',
    );
  }
}
