// Test fixture: a client process that installs the SDK's signal handlers, claims an episode whose fn
// never finishes, prints "claimed <episodeId>" and waits for SIGTERM (src/sdk/sdk.integration.test.ts).
import { installSignalHandlers, SwarmClient } from '../index';

installSignalHandlers({ log: (l) => console.log(l) });
const client = SwarmClient.fromEnv();
await client.episode('sigterm-task', async (ctx) => {
  console.log(`claimed ${ctx.episodeId}`);
  await new Promise((r) => setTimeout(r, 600_000));
  return { reward: 1 };
});
