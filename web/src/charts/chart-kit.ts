/**
 * What the charts share: the recharts parts they use and their colours. One module, so the bundler
 * makes one shared chunk of it (named after it), loaded only with the first chart.
 */
export { Bar, BarChart, CartesianGrid, Cell, Legend, Tooltip, XAxis, YAxis } from 'recharts';
export { type ChartColors, useChartColors } from './colors';
