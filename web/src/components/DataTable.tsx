/**
 * The one table of the product: every list (the manager console's pages, the customer's Peers)
 * renders through it. A table on desktop, cards on phones (spec §9:
 * below 768 px) — only one of the two is in the page at a time. Optional toolbar (search box and
 * filters) and server-side pagination (`{ count, results }` answers, `page` starting at 1).
 */
import { ChevronLeft, ChevronRight, Search } from 'lucide-react';
import { useEffect, useId, useState, type ReactNode } from 'react';
import { es } from '../i18n/es';
import { useIsDesktop } from '../lib/useMediaQuery';
import { ui } from './ui';

export interface Column<T> {
  /** Stable key of the column. */
  key: string;
  header: ReactNode;
  cell: (row: T) => ReactNode;
  /** Extra classes for the cell (alignment, width). */
  className?: string;
  /** Not shown on the phone card (e.g. a long key); the card shows every other column. */
  hideOnCard?: boolean;
}

export interface Pagination {
  page: number;
  pageSize: number;
  count: number;
  onPage: (page: number) => void;
}

export interface DataTableProps<T> {
  /** Accessible name of the table / card list. */
  label: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string | number;
  /** Shown instead of the rows when there are none. */
  empty: ReactNode;
  /** A row that opens its detail (click or Enter). */
  onRowClick?: (row: T) => void;
  /** Title line of a phone card (default: the first column). */
  cardTitle?: (row: T) => ReactNode;
  pagination?: Pagination;
  /** Dims the rows while a new page or search loads, keeping the old ones on screen. */
  stale?: boolean;
  /** The first column names its row (`<th scope="row">`), as a customer's peer name does. */
  rowHeader?: boolean;
  /** A row waiting for something (`aria-busy`), e.g. a peer while its server applies a change. */
  busy?: (row: T) => boolean;
  /** A phone card of the page's own design instead of the generic one (each in its `<li>`). */
  card?: (row: T) => ReactNode;
}

export function DataTable<T>(props: DataTableProps<T>) {
  const desktop = useIsDesktop();
  const { rows, empty, pagination, stale } = props;
  return (
    <div className={stale ? 'opacity-60 transition-opacity' : undefined} aria-busy={stale || undefined}>
      {rows.length === 0 ? (
        <div className={`${ui.card} p-8 text-center text-slate-300`}>{empty}</div>
      ) : desktop ? (
        <Table {...props} />
      ) : (
        <Cards {...props} />
      )}
      {pagination && <Pager {...pagination} />}
    </div>
  );
}

function Table<T>({ label, columns, rows, rowKey, onRowClick, rowHeader, busy }: DataTableProps<T>) {
  return (
    <div className={`${ui.card} overflow-x-auto`}>
      <table className="w-full text-left text-sm" aria-label={label}>
        <thead className="border-b border-slate-800">
          <tr>
            {columns.map((c) => (
              <th key={c.key} scope="col" className={`${ui.th} ${c.className ?? ''}`}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-800/80">
          {rows.map((row) => (
            <tr
              key={rowKey(row)}
              aria-busy={busy?.(row)}
              className={onRowClick ? 'cursor-pointer hover:bg-white/5 focus-visible:bg-white/5' : undefined}
              tabIndex={onRowClick ? 0 : undefined}
              onClick={onRowClick ? () => onRowClick(row) : undefined}
              onKeyDown={
                onRowClick
                  ? (e) => {
                      if (e.key === 'Enter') onRowClick(row);
                    }
                  : undefined
              }
            >
              {columns.map((c, i) =>
                rowHeader && i === 0 ? (
                  <th
                    key={c.key}
                    scope="row"
                    className={`px-4 py-3 font-semibold text-white ${c.className ?? ''}`}
                  >
                    {c.cell(row)}
                  </th>
                ) : (
                  <td key={c.key} className={`px-4 py-3 text-slate-200 ${c.className ?? ''}`}>
                    {c.cell(row)}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Cards<T>({ label, columns, rows, rowKey, onRowClick, cardTitle, card }: DataTableProps<T>) {
  const [first, ...rest] = columns;
  const fields = (cardTitle ? columns : rest).filter((c) => !c.hideOnCard);
  const generic = (row: T) => {
    const title = cardTitle ? cardTitle(row) : first?.cell(row);
    return (
      <>
        <div className="font-semibold text-white">
          {onRowClick ? (
            <button type="button" className="text-left hover:underline" onClick={() => onRowClick(row)}>
              {title}
            </button>
          ) : (
            title
          )}
        </div>
        <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 text-sm">
          {fields.map((c) => (
            <div key={c.key} className="contents">
              <dt className="text-slate-400">{c.header}</dt>
              <dd className="min-w-0 break-words text-slate-200">{c.cell(row)}</dd>
            </div>
          ))}
        </dl>
      </>
    );
  };
  return (
    <ul className={card ? 'space-y-4' : 'space-y-3'} aria-label={label}>
      {rows.map((row) => (
        <li key={rowKey(row)} className={card ? undefined : `${ui.card} p-4`}>
          {card ? card(row) : generic(row)}
        </li>
      ))}
    </ul>
  );
}

function Pager({ page, pageSize, count, onPage }: Pagination) {
  const pages = Math.max(1, Math.ceil(count / pageSize));
  if (count <= pageSize && page === 1) return null;
  const from = (page - 1) * pageSize + 1;
  const to = Math.min(count, page * pageSize);
  return (
    <nav aria-label={es.table.pagination} className="mt-4 flex items-center justify-between gap-3 text-sm">
      <span className="text-slate-400">{es.table.range(from, to, count)}</span>
      <div className="flex items-center gap-2">
        <button
          type="button"
          className={ui.buttonGhost}
          disabled={page <= 1}
          onClick={() => onPage(page - 1)}
          aria-label={es.table.previous}
        >
          <ChevronLeft className="size-4" aria-hidden="true" />
        </button>
        <span className="text-slate-300">{es.table.pageOf(page, pages)}</span>
        <button
          type="button"
          className={ui.buttonGhost}
          disabled={page >= pages}
          onClick={() => onPage(page + 1)}
          aria-label={es.table.next}
        >
          <ChevronRight className="size-4" aria-hidden="true" />
        </button>
      </div>
    </nav>
  );
}

/**
 * The search box of a list page. It reports the text after the operator stops typing (300 ms), so
 * a search costs one request, not one per key.
 */
export function SearchBox({
  value,
  onSearch,
  placeholder,
  label,
}: {
  value: string;
  onSearch: (q: string) => void;
  placeholder: string;
  label: string;
}) {
  const id = useId();
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    if (text === value) return;
    const timer = setTimeout(() => onSearch(text.trim()), 300);
    return () => clearTimeout(timer);
  }, [text, value, onSearch]);
  return (
    <div className="relative w-full sm:max-w-sm">
      <label htmlFor={id} className="sr-only">
        {label}
      </label>
      <Search
        className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-slate-500"
        aria-hidden="true"
      />
      <input
        id={id}
        type="search"
        value={text}
        onChange={(e) => setText(e.target.value)}
        placeholder={placeholder}
        className={`${ui.input} pl-9`}
      />
    </div>
  );
}

/** A labelled select used as a list filter. */
export function FilterSelect({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: string;
  options: { value: string; label: string }[];
  onChange: (value: string) => void;
}) {
  const id = useId();
  return (
    <div className="flex items-center gap-2">
      <label htmlFor={id} className="text-sm text-slate-400">
        {label}
      </label>
      <select
        id={id}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        className={`${ui.input} w-auto py-2`}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}
