/** The charts, each its own chunk: importing this module does not load recharts. */
import { lazy } from 'react';

export const UsageChart = lazy(() => import('./UsageChart'));
export const StatusChart = lazy(() => import('./StatusChart'));
export const HistogramChart = lazy(() => import('./HistogramChart'));
