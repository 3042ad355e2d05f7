/**
 * Markup that is already safe. Pages build HTML only with the `html` tag: every interpolated value
 * is escaped unless it is itself `SafeHtml` (or an array of them), so data from the platform or a
 * channel never becomes markup by mistake.
 */
export class SafeHtml {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  if (typeof value === 'string') return escapeHtml(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new TypeError('html: only strings, numbers, SafeHtml and arrays of them are interpolated');
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return new SafeHtml(out);
}

/** Trusted markup written in code (never data). */
export const raw = (markup: string) => new SafeHtml(markup);

/** A translated text with markup in its `{name}` places (the text itself is escaped). */
export function fill(text: string, values: Record<string, SafeHtml>): SafeHtml {
  return new SafeHtml(
    escapeHtml(text).replace(/\{(\w+)\}/g, (whole, name: string) =>
      Object.hasOwn(values, name) ? values[name]!.value : whole,
    ),
  );
}
