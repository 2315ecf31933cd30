// A virtualised table body: only the rows in view are in the DOM, so lists of 100,000 rows stay
// fast. Rows have a fixed height; the header stays put above the scrolling area.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef, type ReactNode } from 'react';

export interface VirtualRowsProps<T> {
  items: readonly T[];
  rowHeight: number;
  /** CSS grid-template-columns shared by the header and every row. */
  columns: string;
  header: ReactNode;
  renderRow: (item: T, index: number) => ReactNode;
  rowKey: (item: T) => string;
  testId: string;
  empty?: ReactNode;
  className?: string;
}

export function VirtualRows<T>({
  items,
  rowHeight,
  columns,
  header,
  renderRow,
  rowKey,
  testId,
  empty,
  className,
}: VirtualRowsProps<T>) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan: 12,
    getItemKey: (i) => rowKey(items[i]!),
  });
  return (
    <div
      className={`vtable ${className ?? ''}`}
      data-testid={testId}
      role="table"
      data-rows={items.length}
      style={{ ['--cols' as string]: columns }}
    >
      <div className="vtable-head" role="row">
        {header}
      </div>
      <div className="vtable-body" ref={scrollRef}>
        {items.length === 0 && empty ? <div className="vtable-empty">{empty}</div> : null}
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((v) => (
            <div
              key={v.key}
              className="vtable-row-slot"
              style={{ height: rowHeight, transform: `translateY(${v.start}px)` }}
            >
              {renderRow(items[v.index]!, v.index)}
            </div>
          ))}
        </div>
      </div>
    </div>
  );
}
