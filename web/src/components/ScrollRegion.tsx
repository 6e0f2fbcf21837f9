/**
 * A wide table's frame: it scrolls sideways when the table is wider than the screen and, being
 * focusable and named, can be scrolled with the keyboard too. Columns past the edge are easy to
 * miss, so while the table is wider than its frame a line above it says so. (On a phone the tables
 * that use it are laid out as stacked rows instead, styles.css `stacked-on-narrow`.)
 */
import { type ReactNode, useEffect, useId, useRef, useState } from 'react';

export function ScrollRegion({ label, children }: { label: string; children: ReactNode }) {
  const frame = useRef<HTMLElement>(null);
  const [overflowing, setOverflowing] = useState(false);
  const cueId = useId();

  useEffect(() => {
    const region = frame.current;
    if (region === null || typeof ResizeObserver === 'undefined') return;
    const measure = () => setOverflowing(region.scrollWidth > region.clientWidth + 1);
    measure();
    // The frame resizes with the window; the table inside with its rows.
    const observer = new ResizeObserver(measure);
    observer.observe(region);
    if (region.firstElementChild !== null) observer.observe(region.firstElementChild);
    return () => observer.disconnect();
  }, []);

  return (
    <>
      {overflowing && (
        <p id={cueId} className="hint scroll-cue">
          Wider than the screen: scroll the table sideways to see every column.
        </p>
      )}
      <section
        ref={frame}
        className={overflowing ? 'table-scroll overflowing' : 'table-scroll'}
        aria-label={label}
        aria-describedby={overflowing ? cueId : undefined}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
        tabIndex={0}
      >
        {children}
      </section>
    </>
  );
}
