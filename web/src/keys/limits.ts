/** The optional per-key caps as typed in a form: empty means none (null), else a whole number ≥ 1. */

export type CapInput = { ok: true; value: number | null } | { ok: false; message: string };

export function parseCap(text: string): CapInput {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, value: null };
  const value = Number(trimmed);
  if (!Number.isInteger(value) || value < 1)
    return { ok: false, message: 'Enter a whole number of 1 or more, or leave it empty.' };
  return { ok: true, value };
}

export interface Caps {
  rate_limit: number | null;
  monthly_cap: number | null;
}

/** Parses the two cap fields of a form, or gives their errors by field name. */
export function parseCaps(
  form: FormData,
): { ok: true; caps: Caps } | { ok: false; fields: Record<string, string> } {
  const rate = parseCap(String(form.get('rate_limit') ?? ''));
  const cap = parseCap(String(form.get('monthly_cap') ?? ''));
  if (rate.ok && cap.ok) return { ok: true, caps: { rate_limit: rate.value, monthly_cap: cap.value } };
  return {
    ok: false,
    fields: { ...(!rate.ok && { rate_limit: rate.message }), ...(!cap.ok && { monthly_cap: cap.message }) },
  };
}

/** A key form's name and caps, or the messages of its wrong fields (`missingName` when it is empty). */
export function parseKeyForm(
  form: FormData,
  missingName: string,
): { ok: true; name: string; caps: Caps } | { ok: false; fields: Record<string, string> } {
  const name = String(form.get('name')).trim();
  const parsed = parseCaps(form);
  if (name !== '' && parsed.ok) return { ok: true, name, caps: parsed.caps };
  return {
    ok: false,
    fields: { ...(name === '' && { name: missingName }), ...(parsed.ok ? {} : parsed.fields) },
  };
}
