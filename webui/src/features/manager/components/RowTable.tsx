/**
 * The manager's tables, which never scroll sideways (docs/webui.md, "Every screen fits"). The first column is the
 * row's name with its actions beside it (`NameWithActions`). From 1024 px every column shows and the table fits its
 * box by wrapping cells; below 1024 px (the customer's cards start there too, src/lib/screen.ts) the secondary
 * columns move into a detail line under the name, and only the columns that have no `detail` stay beside it (the
 * state's badge). `compact` asks for the narrow form at every width, for a table in a drawer.
 */
import { Table, Text } from '@mantine/core';
import { Fragment, type ReactNode } from 'react';
import { useNarrowScreen } from '../../../lib/screen';

export interface Column<T> {
  header: string;
  cell: (row: T) => ReactNode;
  /** What the column says in the detail line on a narrow screen; without it the column stays a column. */
  detail?: (row: T) => ReactNode;
}

/** Cells of words that cannot break (an email, an address) break anywhere rather than widen the table. */
const BREAKS = { overflowWrap: 'anywhere' } as const;

export function RowTable<T>({
  rows,
  rowKey,
  name,
  columns,
  compact = false,
  striped = true,
  onRowClick,
  rowProps,
}: {
  rows: T[];
  rowKey: (row: T) => string;
  /** The first column: its header and the row's name (with its actions). */
  name: Column<T>;
  columns: Column<T>[];
  compact?: boolean;
  striped?: boolean;
  onRowClick?: (row: T) => void;
  rowProps?: (row: T) => Record<string, string>;
}) {
  const narrow = useNarrowScreen() || compact;
  const shown = narrow ? columns.filter((column) => !column.detail) : columns;
  const details = narrow ? columns.filter((column) => column.detail) : [];
  return (
    <Table striped={striped} highlightOnHover={Boolean(onRowClick)}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>{name.header}</Table.Th>
          {shown.map((column) => (
            <Table.Th key={column.header}>{column.header}</Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((row) => (
          <Table.Tr
            key={rowKey(row)}
            {...rowProps?.(row)}
            onClick={onRowClick && (() => onRowClick(row))}
            style={onRowClick && { cursor: 'pointer' }}
          >
            <Table.Td style={BREAKS}>
              {name.cell(row)}
              {details.length > 0 && (
                <Text component="div" size="xs" c="dimmed" mt={2} data-testid="row-detail">
                  {details.map((column, index) => (
                    <Fragment key={column.header}>
                      {index > 0 && ' · '}
                      {column.detail!(row)}
                    </Fragment>
                  ))}
                </Text>
              )}
            </Table.Td>
            {shown.map((column) => (
              <Table.Td key={column.header} style={BREAKS}>
                {column.cell(row)}
              </Table.Td>
            ))}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
