/**
 * The charts' colours, read from the CSS custom properties of styles.css so that they follow the
 * light or dark scheme (SVG attributes cannot hold `var(...)` reliably), and read again when it changes.
 */
import { useEffect, useState } from 'react';
import { STATUSES } from '../lib/statuses';

export interface ChartColors {
  text: string;
  grid: string;
  surface: string;
  accent: string;
  status: Record<string, string>;
}

function read(): ChartColors {
  const style = getComputedStyle(document.documentElement);
  const value = (name: string) => style.getPropertyValue(name).trim();
  return {
    text: value('--text'),
    grid: value('--border'),
    surface: value('--surface'),
    accent: value('--accent'),
    status: Object.fromEntries(STATUSES.map((info) => [info.status, value(info.colorVar)])),
  };
}

export function useChartColors(): ChartColors {
  const [colors, setColors] = useState(read);
  useEffect(() => {
    const scheme = window.matchMedia('(prefers-color-scheme: dark)');
    const update = () => setColors(read());
    scheme.addEventListener('change', update);
    return () => scheme.removeEventListener('change', update);
  }, []);
  return colors;
}
