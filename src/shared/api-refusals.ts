// Shared helpers of the Responses and Messages translators: the 400 they answer for a request the
// server cannot honour, and the check that names every top-level field this server does not know
// (so a field is refused by name instead of silently ignored). Pure.
import { SwarmError } from './swarm-error';
import { ErrorTypes } from './swarm-protocol';

export const refuse = (code: string, message: string): SwarmError =>
  new SwarmError(400, ErrorTypes.invalid, code, message);

/** Throws a 400 naming the keys of `body` (an object) that are not in `known`. */
export function refuseUnknownFields(body: unknown, known: readonly string[], api: string): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const unknown = Object.keys(body).filter((k) => !known.includes(k));
  if (unknown.length > 0) {
    const names = unknown
      .slice(0, 10)
      .map((k) => JSON.stringify(k.slice(0, 60)))
      .join(', ');
    throw refuse(
      'unsupported_parameter',
      `${api}: unsupported field${unknown.length > 1 ? 's' : ''} ${names}; this server does not implement ` +
        `${unknown.length > 1 ? 'them' : 'it'}`,
    );
  }
}

/** Throws a 400 when `value` is set (not undefined/null/false/empty): the field is known but not implemented. */
export function refuseIfSet(value: unknown, field: string, why: string): void {
  const empty =
    value === undefined ||
    value === null ||
    value === false ||
    (Array.isArray(value) && value.length === 0) ||
    (typeof value === 'object' && value !== null && Object.values(value).every((v) => v === undefined || v === null));
  if (!empty) throw refuse('unsupported_parameter', `\`${field}\` is not supported: ${why}`);
}

/** `x[key]` of an unknown value (undefined unless x is an object), for checks before validation. */
export function prop(x: unknown, key: string): unknown {
  return typeof x === 'object' && x !== null && !Array.isArray(x)
    ? (Object.getOwnPropertyDescriptor(x, key)?.value as unknown)
    : undefined;
}
