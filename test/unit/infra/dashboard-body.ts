/**
 * Reads the packaged dashboard: its body (an `Fn::Sub` of JSON, each
 * `${Id}` or `${Id.Attr}` kept as the text `Id` or `Id.Attr`), and every
 * metric, SEARCH expression and Logs Insights query its widgets hold.
 */
import { type CfnTemplate, resource } from './package-template.js';

/** One widget of a dashboard body. */
export interface Widget {
  type: 'metric' | 'text' | 'alarm' | 'log';
  properties: {
    title?: string;
    metrics?: unknown[][];
    alarms?: string[];
    query?: string;
  };
}

/** A metric a widget graphs, from a metric line or a SEARCH expression. */
export interface MetricReference {
  widget: string;
  namespace: string;
  name: string;
  /** Dimension name → value; a SEARCH schema's names without a value. */
  dimensions: Record<string, string | undefined>;
  stat: string;
  label?: string;
  /** True when found by SEARCH (one line per matching metric). */
  search: boolean;
}

/** The body and what its `Fn::Sub` references. */
export interface DashboardBody {
  widgets: Widget[];
  /** Every `${…}` of the `Fn::Sub`, as written. */
  substitutions: string[];
}

/** Returns the body of dashboard `logicalId`. */
export const dashboardBody = (
  t: CfnTemplate,
  logicalId: string
): DashboardBody => {
  const body = resource(t, logicalId).Properties?.DashboardBody as {
    'Fn::Sub': string;
  };
  const text = body['Fn::Sub'];
  const substitutions = [...text.matchAll(/\$\{([^}]+)\}/g)].map(
    (m) => m[1] ?? ''
  );
  const json = text.replaceAll(/\$\{([^}]+)\}/g, '$1');
  return {
    widgets: (JSON.parse(json) as { widgets: Widget[] }).widgets,
    substitutions,
  };
};

const SEARCH = /^SEARCH\('\{([^}]*)\}\s*(.*?)',\s*'([^']+)'(?:,\s*(\d+))?\)$/;

/** Returns the metric a SEARCH expression selects; throws on another form. */
const parseSearch = (
  widget: string,
  expression: string,
  label: string | undefined
): MetricReference => {
  const m = SEARCH.exec(expression);
  if (!m) throw new Error(`${widget}: not a schema SEARCH: ${expression}`);
  const [namespace = '', ...names] = (m[1] ?? '').split(',');
  const terms = Object.fromEntries(
    [...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((t) => [t[1], t[2]])
  );
  const { MetricName: name = '', ...values } = terms;
  for (const key of Object.keys(values)) {
    if (!names.includes(key)) {
      throw new Error(`${widget}: ${key} is not in the schema`);
    }
  }
  return {
    widget,
    namespace,
    name,
    dimensions: Object.fromEntries(names.map((n) => [n, values[n]])),
    stat: m[3] ?? '',
    ...(label === undefined ? {} : { label }),
    search: true,
  };
};

/** Returns every metric the body's graphs name, SEARCHes included. */
export const metricReferences = (body: DashboardBody): MetricReference[] =>
  body.widgets
    .filter((w) => w.type === 'metric')
    .flatMap((w) =>
      (w.properties.metrics ?? []).map((line): MetricReference => {
        const widget = w.properties.title ?? '';
        const last = line.at(-1);
        const options = (
          typeof last === 'object' && last !== null ? last : {}
        ) as { expression?: string; stat?: string; label?: string };
        if (options.expression !== undefined) {
          return parseSearch(widget, options.expression, options.label);
        }
        const [namespace, name, ...rest] = line.filter(
          (x): x is string => typeof x === 'string'
        );
        const dimensions: Record<string, string> = {};
        for (let i = 0; i + 1 < rest.length; i += 2) {
          dimensions[rest[i] ?? ''] = rest[i + 1] ?? '';
        }
        return {
          widget,
          namespace: namespace ?? '',
          name: name ?? '',
          dimensions,
          stat: options.stat ?? '',
          ...(options.label === undefined ? {} : { label: options.label }),
          search: false,
        };
      })
    );

/** One Logs Insights query: its log groups and the fields it reads. */
export interface LogQuery {
  widget: string;
  sources: string[];
  fields: string[];
}

/** Returns each log widget's sources and the fields its query reads. */
export const logQueries = (body: DashboardBody): LogQuery[] =>
  body.widgets
    .filter((w) => w.type === 'log')
    .map((w) => {
      const query = w.properties.query ?? '';
      const read = [
        ...query.matchAll(/\b(?:sum|pct|ispresent|max|min|avg)\((\w+)/g),
        ...query.matchAll(/\bby (\w+)/g),
      ].map((m) => m[1] ?? '');
      return {
        widget: w.properties.title ?? '',
        sources: [...query.matchAll(/SOURCE '([^']+)'/g)].map(
          (m) => m[1] ?? ''
        ),
        fields: [...new Set(read)].sort(),
      };
    });
