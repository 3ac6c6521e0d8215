// How validation findings are worded: the spec's Laravel-style messages (spec section 7, R-V1, R-V2),
// one table for every face that speaks them (API v1, the public site's forms). The domain reports
// what is wrong (zod issues, or messages of rules it checks by hand); this module words it.
import type { z } from 'zod';
import type { ValidationError } from '../domain/errors.js';
import { ATTRIBUTE } from '../domain/schema-fields.js';

/** The attribute as messages name it: the field path with `_` read as a space (R-V1). */
export function attributeName(path: readonly PropertyKey[]): string {
  return path.map(String).join('.').replace(/_/g, ' ');
}

function messageFor(issue: z.core.$ZodIssue, attr: string): string {
  const input = (issue as { input?: unknown }).input;
  switch (issue.code) {
    case 'invalid_type':
      if (input === undefined || input === null) return `The ${attr} field is required.`;
      switch (issue.expected) {
        case 'string':
          return `The ${attr} must be a string.`;
        case 'number':
        case 'int':
        case 'bigint':
          return `The ${attr} must be an integer.`;
        case 'array':
        case 'object':
        case 'record':
          return `The ${attr} must be an array.`;
        case 'boolean':
          return `The ${attr} field must be true or false.`;
        case 'date':
          return `The ${attr} is not a valid date.`;
        default:
          return `The selected ${attr} is invalid.`;
      }
    case 'too_big':
      if (issue.origin === 'string')
        return `The ${attr} may not be greater than ${issue.maximum} characters.`;
      if (issue.origin === 'array') return `The ${attr} may not have more than ${issue.maximum} items.`;
      return `The ${attr} may not be greater than ${issue.maximum}.`;
    case 'too_small':
      if (issue.origin === 'string') {
        return Number(issue.minimum) <= 1
          ? `The ${attr} field is required.`
          : `The ${attr} must be at least ${issue.minimum} characters.`;
      }
      if (issue.origin === 'array') {
        return Number(issue.minimum) <= 1
          ? `The ${attr} field is required.`
          : `The ${attr} must have at least ${issue.minimum} items.`;
      }
      return `The ${attr} must be at least ${issue.minimum}.`;
    case 'invalid_value':
      return `The selected ${attr} is invalid.`;
    case 'invalid_format':
      return issue.format === 'datetime'
        ? `The ${attr} is not a valid date.`
        : `The ${attr} format is invalid.`;
    case 'custom':
      if (input === undefined || input === null) return `The ${attr} field is required.`;
      return issue.message.includes(ATTRIBUTE) ? issue.message.split(ATTRIBUTE).join(attr) : issue.message;
    default:
      return `The selected ${attr} is invalid.`;
  }
}

/** Turns zod issues into `{ field: [messages] }`, one entry per field path, in schema order. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const issue of issues) {
    // A field the schema does not know (a strict schema: API v2): one entry per field, by its name.
    if (issue.code === 'unrecognized_keys') {
      for (const name of issue.keys) {
        const path = [...issue.path, name];
        const list = (errors[path.map(String).join('.')] ??= []);
        list.push(`The ${attributeName(path)} field is not allowed.`);
      }
      continue;
    }
    const key = issue.path.map(String).join('.');
    const message = messageFor(issue, attributeName(issue.path));
    const list = (errors[key] ??= []);
    if (!list.includes(message)) list.push(message);
  }
  return errors;
}

/** The field -> messages of a domain ValidationError: its schema issues worded, then its messages. */
export function validationMessages(error: ValidationError): Record<string, string[]> {
  const errors = formatIssues(error.issues as readonly z.core.$ZodIssue[]);
  for (const [field, messages] of Object.entries(error.messages)) {
    const list = (errors[field] ??= []);
    for (const message of messages) if (!list.includes(message)) list.push(message);
  }
  return errors;
}
