// The shape of a server-side printer (a Table's column definitions and one row's cells) and the
// column helpers every printer uses.

import type { KubeObject } from '../../types.js';

export interface ColumnDefinition {
  name: string;
  type: 'string' | 'integer';
  format: string;
  description: string;
  priority: number;
}

export interface Printer {
  columns: ColumnDefinition[];
  cells(obj: KubeObject, now: Date): (string | number)[];
}

export function column(
  name: string,
  options: { type?: 'string' | 'integer'; format?: string; wide?: boolean } = {},
): ColumnDefinition {
  return {
    name,
    type: options.type ?? 'string',
    format: options.format ?? '',
    description: name,
    priority: options.wide ? 1 : 0,
  };
}

export const NAME = column('Name', { format: 'name' });
export const AGE = column('Age');
export const wide = (name: string): ColumnDefinition => column(name, { wide: true });
export const integer = (name: string): ColumnDefinition => column(name, { type: 'integer' });
