"""05 · Custom tool: a typed Python function becomes a tool the model can call.

Run it: ``python examples/05_custom_tool.py``. ``@tool`` builds the tool's JSON schema from the
type hints and its description from the docstring. The call runs as a Temporal activity on a
worker that registered the tool (the embedded worker here; ``rath worker --tools
mypkg.tools:calculator`` elsewhere), and its result goes back to the model as JSON.

Offline, the demo model calls a tool only when told to ("use calculator with {...}"); a real
model (set ``OPENAI_API_KEY``) decides for itself from the schema.
"""

import ast
import operator

from rath import flow
from rath.session import Session
from rath.tools import tool

_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
    ast.USub: operator.neg,
}


@tool(parallel_safe=True)
def calculator(expression: str) -> dict[str, object]:
    """Evaluate an arithmetic expression: + - * / ** and parentheses."""
    return {"expression": expression, "result": _evaluate(ast.parse(expression, mode="eval").body)}


def _evaluate(node: ast.expr) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_evaluate(node.operand))
    raise ValueError(f"not arithmetic: {ast.unparse(node)}")


def main() -> None:
    agent = flow.Agent(
        "Use the calculator for any arithmetic.",
        provider=flow.Provider(model="gpt-4o-mini"),
        tools=[calculator],
        name="calc",
    )
    question = "What is (128 * 37) + (2 ** 10)?"
    hint = ' use calculator with {"expression": "(128 * 37) + (2 ** 10)"}'
    out = agent(Session.from_user_message(question + hint))
    print(out)


if __name__ == "__main__":
    main()
