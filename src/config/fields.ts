import { formatDuration, parseDuration } from '../lib/duration.ts';

/**
 * One configuration key: how to read it from text (env) or TOML values, its default, and the
 * words the documentation and error messages use. `parse` returns `{ error }` with the accepted
 * form when the value is bad, so start-up can stop with one line naming the key.
 */
export type Field<T> = {
  readonly kind: string;
  /** What a valid value looks like, for error messages and docs. */
  readonly form: string;
  readonly description: string;
  readonly defaultValue: T;
  /** The default as documented (a secret's default is never printed, it is simply unset). */
  readonly defaultText: string;
  readonly parse: (raw: unknown) => { value: T } | { error: string };
};

type Options<T> = { default: T; description: string };

/** A field from its parts; `defaults` is the default value and the way the docs print it. */
function makeField<T>(
  kind: string,
  form: string,
  description: string,
  defaults: readonly [value: T, text: string],
  parse: Field<T>['parse'],
): Field<T> {
  return { kind, form, description, defaultValue: defaults[0], defaultText: defaults[1], parse };
}

function fromText(raw: unknown): string | undefined {
  if (typeof raw === 'string') return raw;
  if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
  return undefined;
}

export function stringField(
  opts: Options<string> & { form?: string; validate?: (value: string) => boolean },
): Field<string> {
  const form = opts.form ?? 'text';
  return makeField<string>(
    'string',
    form,
    opts.description,
    [opts.default, opts.default === '' ? '(empty)' : opts.default],
    (raw) => {
      const text = fromText(raw)?.trim();
      if (text === undefined || text === '') return { error: form };
      if (opts.validate && !opts.validate(text)) return { error: form };
      return { value: text };
    },
  );
}

export function optionalStringField(opts: {
  description: string;
  secret?: boolean;
  form?: string;
  validate?: (value: string) => boolean;
}): Field<string | undefined> {
  const form = opts.form ?? 'text';
  return makeField<string | undefined>(
    opts.secret ? 'secret' : 'string',
    form,
    opts.description,
    [undefined, '(unset)'],
    (raw) => {
      const text = fromText(raw);
      if (text === undefined) return { error: form };
      if (text === '') return { value: undefined };
      if (opts.validate && !opts.validate(text)) return { error: form };
      return { value: text };
    },
  );
}

export function integerField(opts: Options<number> & { min: number; max: number }): Field<number> {
  const form = `an integer from ${opts.min} to ${opts.max}`;
  return makeField<number>(
    'integer',
    form,
    opts.description,
    [opts.default, String(opts.default)],
    (raw) => {
      const text = fromText(raw)?.trim();
      if (text === undefined || !/^-?\d{1,16}$/.test(text)) return { error: form };
      const value = Number(text);
      return value < opts.min || value > opts.max ? { error: form } : { value };
    },
  );
}

export function booleanField(opts: Options<boolean>): Field<boolean> {
  const form = '`true` or `false`';
  return makeField<boolean>(
    'boolean',
    form,
    opts.description,
    [opts.default, String(opts.default)],
    (raw) => {
      if (typeof raw === 'boolean') return { value: raw };
      const text = fromText(raw)?.trim().toLowerCase();
      if (text === 'true' || text === '1') return { value: true };
      if (text === 'false' || text === '0') return { value: false };
      return { error: form };
    },
  );
}

export function durationField(
  opts: Options<number> & { minMs?: number; maxMs?: number },
): Field<number> {
  const form = 'a duration such as `90s`, `5m` or `1h`';
  return makeField<number>(
    'duration',
    form,
    opts.description,
    [opts.default, formatDuration(opts.default)],
    (raw) => {
      const text = fromText(raw);
      const ms = text === undefined ? undefined : parseDuration(text);
      if (ms === undefined) return { error: form };
      if (opts.minMs !== undefined && ms < opts.minMs) {
        return { error: `${form}, at least ${formatDuration(opts.minMs)}` };
      }
      if (opts.maxMs !== undefined && ms > opts.maxMs) {
        return { error: `${form}, at most ${formatDuration(opts.maxMs)}` };
      }
      return { value: ms };
    },
  );
}

export function listField(
  opts: Options<readonly string[]> & { itemForm: string; validate?: (item: string) => boolean },
): Field<readonly string[]> {
  const form = `a comma-separated list of ${opts.itemForm}`;
  return makeField<readonly string[]>(
    'list',
    form,
    opts.description,
    [opts.default, opts.default.length === 0 ? '(empty)' : opts.default.join(',')],
    (raw) => {
      const items = Array.isArray(raw)
        ? raw.map((item) => fromText(item))
        : fromText(raw)?.split(',');
      if (items === undefined || items.some((item) => item === undefined)) return { error: form };
      const values = (items as string[]).map((item) => item.trim()).filter((item) => item !== '');
      if (opts.validate && !values.every(opts.validate)) return { error: form };
      return { value: Object.freeze(values) };
    },
  );
}

export function enumField<const T extends string>(opts: {
  values: readonly T[];
  description: string;
}): Field<T | undefined> {
  const form = `one of ${opts.values.map((value) => `\`${value}\``).join(', ')}`;
  return makeField<T | undefined>('enum', form, opts.description, [undefined, '(unset)'], (raw) => {
    const text = fromText(raw)?.trim();
    if (text === '') return { value: undefined };
    return opts.values.includes(text as T) ? { value: text as T } : { error: form };
  });
}

export function urlField(opts: {
  description: string;
  protocols: string[];
}): Field<URL | undefined> {
  const form = `an absolute URL (${opts.protocols.join(', ')})`;
  return makeField<URL | undefined>(
    'url',
    form,
    opts.description,
    [undefined, '(unset)'],
    (raw) => {
      const text = fromText(raw)?.trim();
      if (text === undefined) return { error: form };
      if (text === '') return { value: undefined };
      const url = URL.canParse(text) ? new URL(text) : undefined;
      if (!url || !opts.protocols.includes(url.protocol)) return { error: form };
      return { value: url };
    },
  );
}
