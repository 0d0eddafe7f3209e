/** Result values for expected failures (zod's `safeParse` shape): counted, never thrown. */
export type Result<T, E> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

/** A successful result. */
export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

/** A failed result. */
export function err<E>(error: E): { ok: false; error: E } {
  return { ok: false, error };
}
