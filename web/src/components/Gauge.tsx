/** A horizontal bar with the ARIA of a progress bar (work under way) or a meter (an amount used). */

interface GaugeProps {
  kind: 'progressbar' | 'meter';
  /** The accessible name (a list's name, "Verifications this month"). */
  label: string;
  value: number;
  max: number;
  /** The value in words, read instead of a bare number. */
  valueText: string;
}

export function Gauge({ kind, label, value, max, valueText }: GaugeProps) {
  const ratio = max > 0 ? Math.min(1, Math.max(0, value / max)) : 0;
  const fill = <div className="gauge-fill" style={{ width: `${ratio * 100}%` }} />;
  // Not <progress>/<meter>: the ARIA attributes are explicit (tests and tools read aria-valuenow) and
  // the bar looks the same in every browser and colour scheme.
  return kind === 'progressbar' ? (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={max}
      aria-valuenow={value}
      aria-valuetext={valueText}
      className="gauge"
    >
      {fill}
    </div>
  ) : (
    // biome-ignore lint/a11y/useSemanticElements: see above
    <div
      role="meter"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={max}
      aria-valuenow={value}
      aria-valuetext={valueText}
      className="gauge"
    >
      {fill}
    </div>
  );
}
