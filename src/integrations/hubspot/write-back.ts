/**
 * What Mailvet writes to a HubSpot portal (docs/integrations/hubspot.md): a contact property group
 * `mailvet` with four properties, and three DYNAMIC lists on `mailvet_score`; and the property
 * values of one result.
 */

import { STATUS_NAMES } from '../../verification/report.ts';
import { categoryOf } from '../categories.ts';
import type { MemberResult } from '../ports.ts';

export const PROPERTY_GROUP = { name: 'mailvet', label: 'Mailvet', displayOrder: -1 } as const;

const option = (value: string, displayOrder: number) => ({
  label: value,
  value,
  displayOrder,
  hidden: false,
});

/** The contact properties, with HubSpot's types and field types. */
export const PROPERTIES = [
  {
    name: 'mailvet_status',
    label: 'Mailvet status',
    type: 'enumeration',
    fieldType: 'select',
    options: STATUS_NAMES.map(option),
  },
  { name: 'mailvet_score', label: 'Mailvet score', type: 'number', fieldType: 'number' },
  { name: 'mailvet_checked', label: 'Mailvet checked', type: 'date', fieldType: 'date' },
  {
    name: 'mailvet_category',
    label: 'Mailvet category',
    type: 'enumeration',
    fieldType: 'select',
    options: ['valid', 'risky', 'invalid'].map(option),
  },
].map((property) => ({ ...property, groupName: PROPERTY_GROUP.name, description: 'Written by Mailvet' }));

const scoreFilter = (operation: Record<string, unknown>) => ({
  filterBranchType: 'OR',
  filterBranches: [
    {
      filterBranchType: 'AND',
      filterBranches: [],
      filters: [
        {
          filterType: 'PROPERTY',
          property: 'mailvet_score',
          operation: { operationType: 'NUMBER', ...operation },
        },
      ],
    },
  ],
  filters: [],
});

/** The DYNAMIC lists on `mailvet_score`, each band with its own bounds. */
export const SCORE_LISTS = [
  {
    name: 'Mailvet score 80-100',
    filterBranch: scoreFilter({ operator: 'IS_GREATER_THAN_OR_EQUAL_TO', value: 80 }),
  },
  {
    name: 'Mailvet score 50-79',
    filterBranch: scoreFilter({ operator: 'IS_BETWEEN', lowerBound: 50, upperBound: 79 }),
  },
  {
    name: 'Mailvet score 0-49',
    filterBranch: scoreFilter({ operator: 'IS_LESS_THAN_OR_EQUAL_TO', value: 49 }),
  },
] as const;

/** The properties a result writes: status, score and day with `fields`, the category with `tags`. */
export function resultProperties(result: MemberResult, options: { fields: boolean; tags: boolean }) {
  const properties: Record<string, string> = {};
  if (options.fields) {
    properties.mailvet_status = result.status;
    properties.mailvet_score = String(result.score);
    // A date property takes midnight UTC of its day, in epoch milliseconds.
    properties.mailvet_checked = String(Date.parse(`${result.checkedOn}T00:00:00Z`));
  }
  if (options.tags) properties.mailvet_category = categoryOf(result.status);
  return properties;
}
