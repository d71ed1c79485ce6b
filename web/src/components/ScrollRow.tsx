import { ChevronLeft, ChevronRight } from 'lucide-react';
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';

/**
 * A row of links that scrolls sideways when it does not fit (the console's section bar, issue 28):
 * at the edge where items are cut, a fade and a button say that more follows, and the button
 * scrolls the rest in. The item of the current page is scrolled into view. `moreLabel` and
 * `backLabel` name the two buttons for screen readers.
 */
export function ScrollRow({
  children,
  moreLabel,
  backLabel,
  className = '',
}: {
  children: ReactNode;
  moreLabel: string;
  backLabel: string;
  className?: string;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const [edges, setEdges] = useState({ before: false, after: false });

  const measure = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    // One pixel of slack: zoom levels leave fractional scroll positions.
    const before = el.scrollLeft > 1;
    const after = el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
    setEdges((old) => (old.before === before && old.after === after ? old : { before, after }));
  }, []);

  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    // The current page's item in view (beyond the button that covers the edge).
    const current = el.querySelector<HTMLElement>('[aria-current="page"]');
    if (current) {
      const right = current.offsetLeft - el.offsetLeft + current.offsetWidth;
      if (right > el.scrollLeft + el.clientWidth) el.scrollLeft = right - el.clientWidth + 48;
    }
    measure();
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(measure);
    observer?.observe(el);
    window.addEventListener('resize', measure);
    el.addEventListener('scroll', measure, { passive: true });
    return () => {
      observer?.disconnect();
      window.removeEventListener('resize', measure);
      el.removeEventListener('scroll', measure);
    };
  }, [measure]);

  const scrollBy = (direction: 1 | -1) => {
    const el = scroller.current;
    if (el) el.scrollBy({ left: direction * Math.max(el.clientWidth * 0.7, 120), behavior: 'smooth' });
  };

  const button =
    'absolute inset-y-0 z-10 flex w-12 items-center text-slate-200 hover:text-white from-navy-950 via-navy-950/90 to-transparent';
  return (
    <div className={`relative ${className}`}>
      <div
        ref={scroller}
        className="flex gap-1 overflow-x-auto [scrollbar-width:none] [&::-webkit-scrollbar]:hidden"
      >
        {children}
      </div>
      {edges.before && (
        <button
          type="button"
          aria-label={backLabel}
          title={backLabel}
          onClick={() => scrollBy(-1)}
          className={`${button} left-0 justify-start bg-gradient-to-r`}
        >
          <ChevronLeft className="size-5" aria-hidden="true" />
        </button>
      )}
      {edges.after && (
        <button
          type="button"
          aria-label={moreLabel}
          title={moreLabel}
          onClick={() => scrollBy(1)}
          className={`${button} right-0 justify-end bg-gradient-to-l`}
        >
          <ChevronRight className="size-5" aria-hidden="true" />
        </button>
      )}
    </div>
  );
}
