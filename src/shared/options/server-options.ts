// The worker options of its HTTP server: the address and TLS, the public URL, episode and client
// timeouts, request and connection limits, the stop timeout. Part of WORKER_OPTIONS (declarations.ts,
// where the rest of the options and how they are used are described), in this order.
import { z } from 'zod';
import { bool, intIn, numberIn, oneOf, option, text } from './spec';

export const SERVER_OPTIONS = {
  host: option({
    value: text(),
    default: '127.0.0.1',
    flag: 'host',
    arg: 'H',
    help: 'bind address (0.0.0.0 to serve other machines: needs TLS, or --insecure-http true)',
  }),
  tls: option({
    value: oneOf(['off', 'self-signed']),
    default: 'off',
    flag: 'tls',
    help:
      'self-signed: serve HTTPS and WSS with a certificate made on first start in <run-dir>/tls (its SHA-256 ' +
      'fingerprint is printed and shown in /health; clients pin it)',
  }),
  tlsCert: option({
    value: text(),
    flag: 'tls-cert',
    arg: 'FILE',
    help: 'serve HTTPS and WSS with this PEM certificate (chain); needs --tls-key',
    unset: 'plain HTTP unless --tls self-signed',
  }),
  tlsKey: option({
    value: text(),
    flag: 'tls-key',
    arg: 'FILE',
    help: 'the PEM private key of --tls-cert',
    unset: 'none',
  }),
  insecureHttp: option({
    value: bool,
    default: false,
    flag: 'insecure-http',
    help:
      'allow plain HTTP on a non-loopback --host: tokens, episode keys and conversations then cross the ' +
      'network unencrypted (only behind a TLS-terminating proxy or on a network you trust)',
  }),
  port: option({
    value: intIn(0, 65_535),
    default: 8321,
    flag: 'port',
    arg: 'P',
    help: 'HTTP port (0 picks a free one)',
  }),
  publicUrl: option({
    value: text(z.string().url()),
    flag: 'public-url',
    arg: 'URL',
    help: 'base URL handed to clients in claims',
    unset: 'from the Host header',
  }),
  episodeTimeoutS: option({
    value: numberIn(z.number().positive()),
    default: 300,
    flag: 'episode-timeout',
    arg: 'S',
    help: 'default inactivity timeout of an episode, seconds',
  }),
  maxEpisodeTimeoutS: option({
    value: numberIn(z.number().positive()),
    default: 3600,
    help: 'largest inactivity timeout a claim may ask for, seconds',
  }),
  clientTimeoutS: option({
    value: numberIn(z.number().positive()),
    default: 120,
    flag: 'client-timeout',
    arg: 'S',
    help: 'a silent client is gone after S seconds (its open episodes are aborted)',
  }),
  bodyLimitBytes: option({
    value: intIn(1),
    default: 8 * 1024 * 1024,
    flag: 'body-limit',
    arg: 'BYTES',
    help: 'largest request body',
  }),
  headersTimeoutS: option({
    value: numberIn(z.number().positive()),
    default: 10,
    flag: 'headers-timeout',
    arg: 'S',
    help: 'the request line and headers must arrive within S seconds (slowloris)',
  }),
  requestTimeoutS: option({
    value: numberIn(z.number().positive()),
    default: 60,
    flag: 'request-timeout',
    arg: 'S',
    help: 'a whole request, body included, must arrive within S seconds',
  }),
  keepAliveTimeoutS: option({
    value: numberIn(z.number().positive()),
    default: 30,
    flag: 'keep-alive-timeout',
    arg: 'S',
    help: 'an idle keep-alive connection is closed after S seconds',
  }),
  maxConnectionsPerAddress: option({
    value: intIn(0),
    default: 256,
    flag: 'max-connections-per-address',
    arg: 'N',
    help: 'concurrent connections from one address; more get a 503 (0: no limit)',
  }),
  stopTimeoutS: option({
    value: numberIn(z.number().positive()),
    default: 120,
    flag: 'stop-timeout',
    arg: 'S',
    help:
      'SIGTERM waits at most S seconds for the final checkpoint, then stops the engine without it (--resume ' +
      'continues from the previous one)',
  }),
};
