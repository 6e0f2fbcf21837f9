/**
 * Merge fields (audience fields): `GET/POST /lists/{list_id}/merge-fields`, `GET
 * .../merge-fields/{merge_id}`, and the validation of members' `merge_fields` against them on every
 * write (unknown tag, wrong type, bad date, missing required value → 400 naming the field).
 */
import { type ApiContext, collection, objectBody, ok, type Route } from './api.ts';
import { type FieldProblem, invalid, notFound } from './problems.ts';
import type { Audience, MergeField } from './state.ts';

const TYPES = [
  'text',
  'number',
  'address',
  'phone',
  'date',
  'url',
  'imageurl',
  'radio',
  'dropdown',
  'birthday',
  'zip',
];
const TAG_SHAPE = /^[A-Z0-9_]{1,10}$/;

/** The audience of a route's `list_id`, or 404. */
export function audienceParam(ctx: ApiContext, listId: string | undefined): Audience {
  const audience = ctx.world.audienceOf(ctx.account, listId ?? '');
  if (!audience) throw notFound();
  return audience;
}

export function mergeFieldView(field: MergeField, audience: Audience): Record<string, unknown> {
  return {
    merge_id: field.id,
    tag: field.tag,
    name: field.name,
    type: field.type,
    required: field.required,
    default_value: field.defaultValue,
    public: field.public,
    display_order: field.displayOrder,
    options: field.options,
    help_text: field.helpText,
    list_id: audience.id,
  };
}

export const mergeFieldRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/lists/{list_id}/merge-fields',
    handler: (ctx, request, params) => {
      const audience = audienceParam(ctx, params.list_id);
      const type = request.query.get('type');
      const fields = audience.mergeFields.filter((field) => !type || field.type === type);
      return ok(
        collection(request.query, 'merge_fields', fields, (field) => mergeFieldView(field, audience), {
          list_id: audience.id,
        }),
      );
    },
  },
  {
    method: 'GET',
    pattern: '/lists/{list_id}/merge-fields/{merge_id}',
    handler: (ctx, _request, params) => {
      const audience = audienceParam(ctx, params.list_id);
      const field = audience.mergeFields.find((candidate) => String(candidate.id) === params.merge_id);
      if (!field) throw notFound();
      return ok(mergeFieldView(field, audience));
    },
  },
  {
    method: 'POST',
    pattern: '/lists/{list_id}/merge-fields',
    handler: (ctx, request, params) => {
      const audience = audienceParam(ctx, params.list_id);
      const field = addMergeField(audience, objectBody(request));
      return ok(mergeFieldView(field, audience));
    },
  },
];

/** Validates and adds a merge field; the tag defaults to MMERGE<n> as in Mailchimp. */
export function addMergeField(audience: Audience, body: Record<string, unknown>): MergeField {
  const missing = ['name', 'type'].filter((key) => body[key] === undefined || body[key] === '');
  if (missing.length > 0) {
    throw invalid([{ field: '', message: `Required fields were not provided: ${missing.join(', ')}` }]);
  }
  const problems: FieldProblem[] = [];
  if (typeof body.name !== 'string') problems.push({ field: 'name', message: 'Schema describes string' });
  if (typeof body.type !== 'string' || !TYPES.includes(body.type)) {
    problems.push({
      field: 'type',
      message: `Data presented is not one of the accepted values: ${TYPES.join(', ')}.`,
    });
  }
  const id = audience.nextMergeId;
  const tag = body.tag === undefined ? `MMERGE${id}` : String(body.tag).toUpperCase();
  if (!TAG_SHAPE.test(tag)) {
    problems.push({
      field: 'tag',
      message: 'Merge tags are at most 10 characters: upper-case letters, digits and underscores.',
    });
  } else if (tag === 'EMAIL' || audience.mergeFields.some((field) => field.tag === tag)) {
    problems.push({
      field: 'tag',
      message: `A Merge Field with the tag "${tag}" already exists for this list.`,
    });
  }
  if (problems.length > 0) throw invalid(problems);
  const field: MergeField = {
    id,
    tag,
    name: String(body.name),
    type: String(body.type),
    required: body.required === true,
    defaultValue: typeof body.default_value === 'string' ? body.default_value : '',
    public: body.public === true,
    displayOrder:
      typeof body.display_order === 'number' ? body.display_order : audience.mergeFields.length + 2,
    options:
      typeof body.options === 'object' && body.options !== null
        ? (body.options as Record<string, unknown>)
        : {},
    helpText: typeof body.help_text === 'string' ? body.help_text : '',
  };
  audience.nextMergeId++;
  audience.mergeFields.push(field);
  return field;
}

/**
 * Checks `values` against the audience's merge fields and returns them normalised, or the problems.
 * `creating` also checks required fields (unless `skip_merge_validation`).
 */
export function checkMergeValues(
  audience: Audience,
  values: unknown,
  creating: boolean,
  skipValidation = false,
): { values: Record<string, unknown> } | { problems: FieldProblem[] } {
  if (values === undefined) values = {};
  if (typeof values !== 'object' || values === null || Array.isArray(values)) {
    return { problems: [{ field: 'merge_fields', message: 'Schema describes object' }] };
  }
  const problems: FieldProblem[] = [];
  const normalised: Record<string, unknown> = {};
  for (const [tag, value] of Object.entries(values as Record<string, unknown>)) {
    const field = audience.mergeFields.find((candidate) => candidate.tag === tag.toUpperCase());
    if (!field) {
      problems.push({ field: tag, message: 'Merge field not found' });
      continue;
    }
    const checked = normaliseValue(field, value);
    if ('problem' in checked) problems.push({ field: field.tag, message: checked.problem });
    else normalised[field.tag] = checked.value;
  }
  if (creating && !skipValidation) {
    for (const field of audience.mergeFields) {
      if (field.required && (normalised[field.tag] === undefined || normalised[field.tag] === '')) {
        problems.push({ field: field.tag, message: 'Please enter a value' });
      }
    }
  }
  return problems.length > 0 ? { problems } : { values: normalised };
}

function normaliseValue(field: MergeField, value: unknown): { value: unknown } | { problem: string } {
  if (value === '' || value === null) return { value: '' };
  switch (field.type) {
    case 'number': {
      const number =
        typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
      return Number.isFinite(number) ? { value: number } : { problem: 'Please enter a number' };
    }
    case 'date':
      return normaliseDate(value, field);
    case 'address':
      return typeof value === 'object' ? { value } : { problem: 'Please enter a complete address' };
    default:
      if (typeof value === 'number') return { value: String(value) };
      if (typeof value !== 'string') return { problem: 'Please enter a value' };
      return value.length > 255 ? { problem: 'Value must be 255 characters or less' } : { value };
  }
}

/** Dates are written as YYYY-MM-DD (or in the field's own `date_format`) and stored as YYYY-MM-DD. */
function normaliseDate(value: unknown, field: MergeField): { value: string } | { problem: string } {
  if (typeof value !== 'string') return { problem: 'Please enter a date' };
  let parts: [string, string, string] | undefined;
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const slashed = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(value);
  if (iso) parts = [iso[1] ?? '', iso[2] ?? '', iso[3] ?? ''];
  else if (slashed) {
    const dayFirst = String(field.options.date_format ?? 'MM/DD/YYYY').startsWith('DD');
    const [first, second] = [slashed[1] ?? '', slashed[2] ?? ''];
    parts = [
      slashed[3] ?? '',
      (dayFirst ? second : first).padStart(2, '0'),
      (dayFirst ? first : second).padStart(2, '0'),
    ];
  }
  if (!parts) return { problem: 'Please enter a date' };
  const text = parts.join('-');
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text)
    ? { value: text }
    : { problem: 'Please enter a date' };
}
