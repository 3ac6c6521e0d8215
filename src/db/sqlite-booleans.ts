// better-sqlite3 refuses JavaScript booleans as parameters; SQLite stores flags as 0/1. This plugin
// rewrites boolean parameters to 0/1 so that domain code writes `true` on every dialect.
import { OperationNodeTransformer } from 'kysely';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  PrimitiveValueListNode,
  QueryResult,
  RootOperationNode,
  UnknownRow,
  ValueNode,
} from 'kysely';

const toSqlite = (value: unknown) => (typeof value === 'boolean' ? (value ? 1 : 0) : value);

class BooleanTransformer extends OperationNodeTransformer {
  protected override transformValue(node: ValueNode): ValueNode {
    return typeof node.value === 'boolean' ? { ...node, value: toSqlite(node.value) } : node;
  }

  protected override transformPrimitiveValueList(node: PrimitiveValueListNode): PrimitiveValueListNode {
    return node.values.some((value) => typeof value === 'boolean')
      ? { ...node, values: node.values.map(toSqlite) }
      : node;
  }
}

export class SqliteBooleanPlugin implements KyselyPlugin {
  private readonly transformer = new BooleanTransformer();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.transformer.transformNode(args.node);
  }

  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(args.result);
  }
}
