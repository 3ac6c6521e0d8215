// Renders LiquidJS's parsed templates through closures instead of LiquidJS's interpreter.
//
// LiquidJS runs every tag, output, filter and variable lookup as a generator, driven by toValueSync,
// and checks a render time limit before every node: on a post page that is more than half of the
// request. The compiler walks the templates LiquidJS has parsed (same parser, same files, same cache)
// once, and turns each node it knows into a plain function over the same LiquidJS `Context`: the same
// scopes, registers, `readProperty`, filters and operators, so a compiled template renders exactly
// what LiquidJS renders. What it compiles: text, outputs with filters, `if`/`unless`/`elsif`/`else`,
// `for` (without limit/offset/reversed), `assign`, `render` of a named partial with arguments,
// `layout` and `block`, comments, and tags that compile themselves (`compile(compiler)`, e.g. the
// fragment `{% cache %}` tag). Anything else (another tag, a range, a grouped expression) is handed to
// LiquidJS on the same context, node by node, so every template renders, only slower.
//
// The tests render every page both ways and compare (ThemeOptions.crossCheck).
import {
  AssignTag,
  BlockTag,
  CommentTag,
  Context,
  Drop,
  ForTag,
  IfTag,
  InlineCommentTag,
  LayoutTag,
  LiquidError,
  RenderError,
  RenderTag,
  TypeGuards,
  UnlessTag,
  defaultOperators,
  evalToken,
  filters as liquidFilters,
  isFalsy,
  isTruthy,
  toValue,
  toValueSync,
} from 'liquidjs';
import type { Liquid, Template, Value } from 'liquidjs';

/** A compiled node: writes its output for the context to the emitter. */
export type CompiledNode = (ctx: Context, emitter: Emitter) => void;
/** A compiled expression: its value for the context (drops kept, as LiquidJS's evalToken keeps them). */
export type CompiledExpression = (ctx: Context) => unknown;

/** LiquidJS's SimpleEmitter: `write` stringifies as LiquidJS does; compiled text appends directly. */
export class Emitter {
  buffer = '';
  write(html: unknown): void {
    this.buffer += stringify(html);
  }
}

/** A tag that knows how to compile itself (the fragment cache tag). */
export interface CompilableTag {
  compile(compiler: LiquidCompiler): CompiledNode;
}

// LiquidJS's block modes (its `blockMode` register), shared by compiled and interpreted layouts and
// blocks: a layout's child stores its blocks, then the layout outputs them.
const BLOCK_MODE_OUTPUT = 0;
const BLOCK_MODE_STORE = 1;

type Token = {
  kind: number;
  content?: unknown;
  variable?: Token;
  props?: Token[];
  operator?: string;
  getText(): string;
};
type FilterLike = {
  handler: (...args: unknown[]) => unknown;
  args: (Token | [string, Token])[];
  token: unknown;
  name: string;
};
type BlockRender = (superBlock: unknown, emitter: Emitter) => unknown;

export class LiquidCompiler {
  private readonly compiledLists = new WeakMap<Template[], CompiledNode>();
  private readonly roots = new Map<string, CompiledNode>();
  private readonly operators: Record<string, unknown>;
  /**
   * What was handed to LiquidJS instead of compiled (a tag's name, `range or filtered token`), in
   * the order met: the themes' test renders every template and expects none, so a LiquidJS upgrade
   * that changes its internals shows there, not as a slow page.
   */
  readonly fallbacks: string[] = [];

  constructor(readonly liquid: Liquid) {
    this.operators = liquid.options.operators;
  }

  /** Whether the engine's options let compiled templates render exactly what LiquidJS renders. */
  static supports(liquid: Liquid): boolean {
    const options = liquid.options;
    // Strict variables throw where compiled lookups answer undefined; a render time limit is checked
    // by LiquidJS before every node, which compiled templates do not do.
    return (
      !options.strictVariables &&
      !options.keepOutputType &&
      !options.catchAllErrors &&
      options.renderLimit === Infinity
    );
  }

  /** Renders a template file with data, as LiquidJS's renderFileSync. */
  renderFile(file: string, data: object, globals: object): string {
    let root = this.roots.get(file);
    if (!root) {
      root = this.templates(this.liquid.parseFileSync(file));
      // Parsed files are cached for the engine's life when its `cache` option is on (ours is).
      if (this.liquid.options.cache) this.roots.set(file, root);
    }
    const ctx = new Context(data, this.liquid.options, { sync: true, globals }, { liquid: this.liquid });
    const emitter = new Emitter();
    root(ctx, emitter);
    return emitter.buffer;
  }

  /** A list of templates as one node, compiled once per parsed list (parsed lists are cached). */
  templates(templates: Template[]): CompiledNode {
    let compiled = this.compiledLists.get(templates);
    if (!compiled) {
      compiled = this.list(templates);
      this.compiledLists.set(templates, compiled);
    }
    return compiled;
  }

  /** LiquidJS's renderTemplates: stops after break/continue, reports errors as RenderErrors. */
  list(templates: Template[]): CompiledNode {
    const nodes = templates.map((template) => this.node(template));
    return (ctx, emitter) => {
      for (let i = 0; i < nodes.length; i++) {
        try {
          (nodes[i] as CompiledNode)(ctx, emitter);
        } catch (error) {
          throw LiquidError.is(error) ? error : new RenderError(error as Error, templates[i] as Template);
        }
        if (ctx.breakCalled || ctx.continueCalled) break;
      }
    };
  }

  /** Renders templates to a string, as renderTemplates does without an emitter. */
  capture(node: CompiledNode, ctx: Context): string {
    const emitter = new Emitter();
    node(ctx, emitter);
    return emitter.buffer;
  }

  private node(template: Template): CompiledNode {
    const node = template as unknown as Record<string, unknown>;
    if (TypeGuards.isHTMLToken(template.token)) {
      const text = node.str as string;
      return (_ctx, emitter) => {
        emitter.buffer += text;
      };
    }
    if (TypeGuards.isOutputToken(template.token)) {
      const value = this.value(node.value as Value);
      return (ctx, emitter) => emitter.write(toValue(value(ctx)));
    }
    if (typeof (template as unknown as Partial<CompilableTag>).compile === 'function')
      return (template as unknown as CompilableTag).compile(this);
    if (template instanceof IfTag || template instanceof UnlessTag) return this.conditional(template);
    if (template instanceof ForTag) {
      const compiled = this.forLoop(template);
      if (compiled) return compiled;
    } else if (template instanceof AssignTag) {
      const key = node.key as string;
      const value = this.value(node.value as Value);
      return (ctx) => {
        (ctx.bottom() as Record<string, unknown>)[key] = value(ctx);
      };
    } else if (template instanceof CommentTag || template instanceof InlineCommentTag) {
      return () => undefined;
    } else if (template instanceof RenderTag) {
      const compiled = this.renderTag(template as unknown as RenderLike);
      if (compiled) return compiled;
    } else if (template instanceof LayoutTag) {
      const compiled = this.layout(template as unknown as LayoutLike);
      if (compiled) return compiled;
    } else if (template instanceof BlockTag) {
      return this.block(template);
    }
    // Not compiled: LiquidJS renders this node, on the same context.
    this.fallbacks.push(`tag ${(template.token as { name?: string }).name ?? template.constructor.name}`);
    return (ctx, emitter) => {
      const html: unknown = toValueSync(template.render(ctx, emitter as never));
      if (html) emitter.write(html);
    };
  }

  // ---- Expressions --------------------------------------------------------------------------------

  /** A filtered value (`expression | filter: args…`), as LiquidJS's Value.value. */
  value(value: Value): CompiledExpression {
    const initial = this.expression((value.initial as unknown as { postfix: Token[] }).postfix);
    const filters = (value.filters as unknown as FilterLike[]).map((filter) => this.filter(filter));
    if (filters.length === 0) return initial;
    return (ctx) => {
      let result = initial(ctx);
      for (const filter of filters) result = filter(ctx, result);
      return result;
    };
  }

  private filter(filter: FilterLike): (ctx: Context, value: unknown) => unknown {
    const { handler, token } = filter;
    const liquid = this.liquid;
    if (handler === liquidFilters.escape) {
      // The filter every output ends with (outputEscape), without its replace callback per match.
      return (ctx, value) => {
        const text = stringify(value);
        ctx.memoryLimit.use(text.length);
        return escapeHtml(text);
      };
    }
    if (filter.name.endsWith('_exp')) {
      // Filters that evaluate expressions of their own run exactly as LiquidJS runs them.
      const impl = filter as unknown as { render(value: unknown, ctx: Context): unknown };
      return (ctx, value) => toValueSync(impl.render(value, ctx));
    }
    const args = filter.args.map((arg): ((ctx: Context) => unknown) => {
      if (Array.isArray(arg)) {
        const [key, token] = arg;
        const value = this.token(token);
        return (ctx) => [key, value(ctx)];
      }
      return this.token(arg);
    });
    return (ctx, value) => {
      const argv: unknown[] = [value];
      for (const arg of args) argv.push(arg(ctx));
      return settle(handler.apply({ context: ctx, token, liquid }, argv));
    };
  }

  /** An expression in postfix order, as LiquidJS's Expression.evaluate. */
  expression(postfix: Token[]): CompiledExpression {
    const stack: CompiledExpression[] = [];
    for (const token of postfix) {
      if (!TypeGuards.isOperatorToken(token)) {
        stack.push(this.token(token));
        continue;
      }
      const operator = token.operator as string;
      const right = stack.pop() as CompiledExpression;
      if (operator === 'not') {
        const impl = this.operators.not as (v: unknown, ctx: Context) => unknown;
        stack.push(
          impl === defaultOperators.not
            ? (ctx) => isFalsy(toValue(right(ctx)), ctx)
            : (ctx) => toValueSync(impl(right(ctx), ctx)),
        );
        continue;
      }
      const left = stack.pop() as CompiledExpression;
      stack.push(this.binary(operator, left, right));
    }
    const result = stack[0];
    return result ?? (() => undefined);
  }

  private binary(operator: string, left: CompiledExpression, right: CompiledExpression): CompiledExpression {
    const impl = this.operators[operator] as (l: unknown, r: unknown, ctx: Context) => unknown;
    const general: CompiledExpression = (ctx) => settle(impl(left(ctx), right(ctx), ctx));
    if (impl !== (defaultOperators as Record<string, unknown>)[operator]) return general;
    switch (operator) {
      case '==':
      case '!=': {
        const negate = operator === '!=';
        return (ctx) => {
          const l = left(ctx);
          const r = right(ctx);
          // Plain values compare with ===; drops, arrays and comparables go through LiquidJS.
          if (isPlain(l) && isPlain(r)) return negate ? l !== r : l === r;
          return settle(impl(l, r, ctx));
        };
      }
      case 'and':
        return (ctx) => {
          const l = left(ctx);
          const r = right(ctx);
          return isTruthy(toValue(l), ctx) && isTruthy(toValue(r), ctx);
        };
      case 'or':
        return (ctx) => {
          const l = left(ctx);
          const r = right(ctx);
          return isTruthy(toValue(l), ctx) || isTruthy(toValue(r), ctx);
        };
      default:
        return general;
    }
  }

  /** A value token, as LiquidJS's evalToken (drops kept). */
  token(token: Token | undefined): CompiledExpression {
    if (!token) return () => undefined;
    if ('content' in token) {
      const content = token.content;
      return () => content;
    }
    if (TypeGuards.isPropertyAccessToken(token)) return this.propertyAccess(token);
    // Ranges and filtered values: LiquidJS evaluates them.
    this.fallbacks.push(`token ${token.getText?.() ?? 'range or filtered value'}`);
    return (ctx) => toValueSync(evalTokenOf(token, ctx));
  }

  private propertyAccess(token: Token): CompiledExpression {
    const keys = (token.props ?? []).map((prop) =>
      'content' in prop && typeof prop.content === 'string' ? prop.content : undefined,
    );
    if (!token.variable && keys.length > 0 && keys.every((key) => key !== undefined)) {
      // `a.b.c`, the common case: names known when compiling, read without a closure per name.
      const head = keys[0] as string;
      return (ctx) => {
        let value: unknown = (ctx as unknown as Scopes).findScope(head);
        for (let i = 0; i < keys.length; i++) value = readLiteral(ctx, value, keys[i] as string);
        return value;
      };
    }
    const props = (token.props ?? []).map((prop) => {
      if ('content' in prop) {
        const content: unknown = toValue(prop.content);
        return () => content;
      }
      const value = this.token(prop);
      return (ctx: Context): unknown => toValue(value(ctx));
    });
    const variable = token.variable ? this.token(token.variable) : undefined;
    const first = props[0];
    // `a.b.c` reads a, b and c from the scope that has `a`; `'text'.size` reads size from the literal.
    return (ctx) => {
      let value = variable ? variable(ctx) : (ctx as unknown as Scopes).findScope(first?.(ctx));
      for (let i = 0; i < props.length; i++) {
        value = settle(ctx.readProperty(value as never, (props[i] as CompiledExpression)(ctx) as string));
      }
      return value;
    };
  }

  // ---- Tags ---------------------------------------------------------------------------------------

  private conditional(tag: IfTag | UnlessTag): CompiledNode {
    const node = tag as unknown as {
      branches: { value: Value; templates: Template[]; test?: (v: unknown, ctx: Context) => boolean }[];
      elseTemplates?: Template[];
    };
    const branches = node.branches.map((branch) => ({
      value: this.value(branch.value),
      test: branch.test ?? isTruthy,
      templates: this.list(branch.templates),
    }));
    const otherwise = this.list(node.elseTemplates ?? []);
    return (ctx, emitter) => {
      for (const branch of branches) {
        if (branch.test(toValue(branch.value(ctx)), ctx)) {
          branch.templates(ctx, emitter);
          return;
        }
      }
      otherwise(ctx, emitter);
    };
  }

  private forLoop(tag: ForLike): CompiledNode | undefined {
    if (Object.keys(tag.hash.hash).length > 0) return undefined; // limit, offset, reversed
    const variable = tag.variable;
    const collectionText = tag.collection.getText();
    const collection = this.token(tag.collection);
    const body = this.list(tag.templates);
    const otherwise = this.list(tag.elseTemplates);
    const continueKey = `continue-${variable}-${collectionText}`;
    return (ctx, emitter) => {
      const items = toEnumerable(collection(ctx));
      if (!items.length) {
        otherwise(ctx, emitter);
        return;
      }
      ctx.setRegister(continueKey, items.length);
      const forloop = new ForloopDrop(items.length, collectionText, variable);
      const scope = createScope({ forloop });
      ctx.push(scope);
      for (const item of items) {
        scope[variable] = item;
        ctx.continueCalled = ctx.breakCalled = false;
        body(ctx, emitter);
        if (ctx.breakCalled) break;
        forloop.next();
      }
      ctx.continueCalled = ctx.breakCalled = false;
      ctx.pop();
    };
  }

  private renderTag(tag: RenderLike): CompiledNode | undefined {
    if (typeof tag.file !== 'string' || tag.with || tag.forBinding) return undefined;
    const file = tag.file;
    const args = this.hash(tag.hash.hash);
    let partial: CompiledNode | undefined;
    return (ctx, emitter) => {
      const values = args(ctx);
      const child = ctx.spawn();
      Object.assign(child.bottom(), values);
      partial ??= this.templates(toValueSync(this.liquid._parsePartialFile(file, true, tag.currentFile)));
      partial(child, emitter);
    };
  }

  private layout(tag: LayoutLike): CompiledNode | undefined {
    if (typeof tag.file !== 'string') return undefined;
    const file = tag.file;
    const args = this.hash(tag.args.hash);
    const child = this.list(tag.templates);
    let layout: CompiledNode | undefined;
    return (ctx, emitter) => {
      layout ??= this.templates(toValueSync(this.liquid._parseLayoutFile(file, true, tag.currentFile)));
      // The child's blocks are stored, its other output becomes the anonymous block.
      ctx.setRegister('blockMode', BLOCK_MODE_STORE);
      const html = this.capture(child, ctx);
      const blocks = ctx.getRegister('blocks', {}) as Record<string, BlockRender>;
      if (blocks[''] === undefined) blocks[''] = (_parent, out) => out.write(html);
      ctx.setRegister('blockMode', BLOCK_MODE_OUTPUT);
      ctx.push(createScope(args(ctx)));
      layout(ctx, emitter);
      ctx.pop();
    };
  }

  private block(tag: BlockLike): CompiledNode {
    const name = tag.block;
    const templates = this.list(tag.templates);
    return (ctx, emitter) => {
      const renderChild = (ctx.getRegister('blocks', {}) as Record<string, BlockRender>)[name];
      const renderCurrent: BlockRender = (superBlock, out) => {
        const stack = ctx.getRegister('blockStack', []) as unknown[];
        if (stack.includes(tag)) throw new Error('block tag cannot be nested');
        stack.push(tag);
        ctx.push(createScope({ block: superBlock }));
        templates(ctx, out);
        ctx.pop();
        stack.pop();
      };
      const render: BlockRender = renderChild
        ? (superBlock, out) =>
            renderChild(new BlockDrop((inner: Emitter) => renderCurrent(superBlock, inner)), out)
        : renderCurrent;
      if (ctx.getRegister('blockMode') === BLOCK_MODE_STORE) {
        (ctx.getRegister('blocks', {}) as Record<string, BlockRender>)[name] = render;
      } else {
        toValueSync(render(new BlockDrop(), emitter));
      }
    };
  }

  /** A tag's `key: value` arguments (a key without a value is true), as LiquidJS's Hash.render. */
  private hash(hash: Record<string, Token | undefined>): (ctx: Context) => Record<string, unknown> {
    const entries = Object.keys(hash).map((key) => {
      const token = hash[key];
      return [key, token === undefined ? () => true : this.token(token)] as const;
    });
    return (ctx) => {
      const values: Record<string, unknown> = {};
      for (const [key, value] of entries) values[key] = value(ctx);
      return values;
    };
  }
}

type ForLike = {
  variable: string;
  collection: Token;
  hash: { hash: Record<string, Token | undefined> };
  templates: Template[];
  elseTemplates: Template[];
};
type RenderLike = {
  file: unknown;
  currentFile?: string;
  with?: unknown;
  forBinding?: unknown;
  hash: { hash: Record<string, Token | undefined> };
};
type LayoutLike = {
  file: unknown;
  currentFile?: string;
  args: { hash: Record<string, Token | undefined> };
  templates: Template[];
};
/** Context.findScope, public in LiquidJS's JavaScript (Context._get calls it) but private in its types. */
type Scopes = { findScope(key: unknown): unknown };
type BlockLike = { block: string; templates: Template[] };

// ---- LiquidJS's runtime helpers that it does not export (liquidjs 10.x, same behaviour) ------------

/** LiquidJS's evalToken (a generator), for what the compiler leaves to LiquidJS. */
function evalTokenOf(token: Token, ctx: Context): unknown {
  return (evalToken as (token: unknown, ctx: Context) => unknown)(token, ctx);
}

/**
 * `toValueSync(ctx.readProperty(obj, key))` for a name known when compiling. A plain object read under
 * ownPropertyOnly (our engines' option) takes a short path with the same answer: LiquidJS's readProperty
 * would find no `toLiquid`, no drop, no array, and no `size`/`first`/`last` to special-case.
 */
function readLiteral(ctx: Context, obj: unknown, key: string): unknown {
  if (
    typeof obj === 'object' &&
    obj !== null &&
    ctx.ownPropertyOnly &&
    key !== 'size' &&
    key !== 'first' &&
    key !== 'last' &&
    !(obj instanceof Drop) &&
    !Array.isArray(obj) &&
    typeof (obj as { toLiquid?: unknown }).toLiquid !== 'function'
  ) {
    if (!Object.hasOwn(obj, key)) return undefined;
    const value = (obj as Record<string, unknown>)[key];
    return settle(typeof value === 'function' ? (value as () => unknown).call(obj) : value);
  }
  return settle(ctx.readProperty(obj as never, key));
}

/** toValueSync, which drives iterators (LiquidJS's generators): only an object or a function can be one. */
function settle(value: unknown): unknown {
  return (typeof value === 'object' && value !== null) || typeof value === 'function'
    ? toValueSync(value)
    : value;
}

/** Neither a drop, an array, nor an object LiquidJS compares by its own `equals`. */
function isPlain(value: unknown): boolean {
  return value === null || (typeof value !== 'object' && typeof value !== 'function');
}

/** LiquidJS's escape filter: & < > " ' as entities. */
function escapeHtml(text: string): string {
  let out = '';
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    let entity: string;
    switch (text.charCodeAt(i)) {
      case 38:
        entity = '&amp;';
        break;
      case 60:
        entity = '&lt;';
        break;
      case 62:
        entity = '&gt;';
        break;
      case 34:
        entity = '&#34;';
        break;
      case 39:
        entity = '&#39;';
        break;
      default:
        continue;
    }
    out += text.slice(last, i) + entity;
    last = i + 1;
  }
  return last === 0 ? text : out + text.slice(last);
}

function stringify(value: unknown): string {
  value = toValue(value);
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map((item) => stringify(item)).join('');
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- LiquidJS prints objects so too
  return String(value);
}

function toEnumerable(value: unknown): unknown[] {
  value = toValue(value);
  if (Array.isArray(value)) return value;
  if (typeof value === 'string' && value.length > 0) return [value];
  if (value !== null && (typeof value === 'object' || typeof value === 'function')) {
    if (Symbol.iterator in value) return Array.from(value as Iterable<unknown>);
    return Object.keys(value).map((key) => [key, (value as Record<string, unknown>)[key]]);
  }
  return [];
}

function createScope(from?: Record<string, unknown>): Record<string, unknown> {
  const scope = Object.create(null) as Record<string, unknown>;
  if (from) Object.assign(scope, from);
  return scope;
}

/** LiquidJS's `forloop`. */
class ForloopDrop extends Drop {
  i: number;
  length: number;
  name: string;
  constructor(length: number, collection: string, variable: string) {
    super();
    // Assigned in LiquidJS's order: `{{ forloop }}` prints them as JSON.
    this.i = 0;
    this.length = length;
    this.name = `${variable}-${collection}`;
  }
  next() {
    this.i++;
  }
  index0() {
    return this.i;
  }
  index() {
    return this.i + 1;
  }
  first() {
    return this.i === 0;
  }
  last() {
    return this.i === this.length - 1;
  }
  rindex() {
    return this.length - this.i;
  }
  rindex0() {
    return this.length - this.i - 1;
  }
  override valueOf() {
    return JSON.stringify(this);
  }
}

/** LiquidJS's `block` inside a block: `{{ block.super }}`. */
class BlockDrop extends Drop {
  constructor(private readonly superBlockRender: (emitter: Emitter) => unknown = () => '') {
    super();
  }
  *super(): Generator<unknown, string, unknown> {
    const emitter = new Emitter();
    yield this.superBlockRender(emitter);
    return emitter.buffer;
  }
}
