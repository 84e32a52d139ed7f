/**
 * `value` written as `toLocaleString('en')` writes it (`1,234,567.5`: commas between groups of
 * three digits, at most three decimals), without Intl. The first Intl number format a process
 * makes loads ICU's locale data and keeps about 6 MB resident for good; the cache registry
 * describes every cache's bound as a start builds it, so an idle server must not pay for that.
 */
export function withDigitGroups(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '∞' : '-∞';
  const rounded = Math.round(Math.abs(value) * 1000) / 1000;
  const [whole = '0', decimals] = rounded
    .toFixed(3)
    .replace(/\.?0+$/, '')
    .split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+$)/g, ',');
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  return `${sign}${grouped}${decimals ? `.${decimals}` : ''}`;
}
