/** A verification status in words, marked with its colour. */
import type { CSSProperties } from 'react';
import { statusInfo } from '../lib/statuses';

export function StatusBadge({ status }: { status: string }) {
  const info = statusInfo(status);
  return (
    <span className="badge" style={{ '--badge-color': `var(${info.colorVar})` } as CSSProperties}>
      {info.label}
    </span>
  );
}
