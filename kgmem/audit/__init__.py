"""Evidence audit: why did these turns come back, and are they the right ones?

Views of one `SearchResult`, used by ``kgmem explain``, the evidence-audit notebook and anyone
checking a retrieval by hand (docs/audit.md):

- `evidence_picture` / `build_picture` (`kgmem.audit.picture`): one question's evidence as a
  layered `EvidencePicture` (question and plan, hits in rank order with missed gold turns and
  why, the facts that brought each hit, the entities, events and older values that connected
  them, the current-value decision), drawn statically by `draw_picture` / `save_picture` and
  interactively by `to_visualization_graph` / `write_html` (neo4j-viz);
- `plot_terms`: a stacked bar of each hit's score terms, every term of `TERMS` in the legend;
- `evidence_cypher`: a ready-to-paste Neo4j Browser script drawing the hits' evidence subgraph;
  `evidence_subgraph` / `draw_evidence`: that whole subgraph in networkx, drawn as is;
- `grade`: the EXACT / SUPPORTED grades of docs/design.md §4 for one question.

Only `evidence_picture`, `evidence_subgraph` and `grade` touch the store (through `Memory` and
named statements); matplotlib and neo4j-viz are imported when something is drawn.
"""

from kgmem.audit.build import build_picture, missed_gold
from kgmem.audit.draw import draw_picture, save_picture
from kgmem.audit.grade import grade
from kgmem.audit.interactive import to_html, to_visualization_graph, write_html
from kgmem.audit.model import (
    MAX_NODES,
    POOL_K,
    EvidencePicture,
    MissedGold,
    PictureEdge,
    PictureNode,
)
from kgmem.audit.picture import evidence_picture
from kgmem.audit.subgraph import EDGE_COLOURS, NODE_COLOURS, draw_evidence, evidence_subgraph
from kgmem.audit.terms import TERMS, plot_terms
from kgmem.retrieve.evidence import cypher_string, evidence_cypher

__all__ = [
    "EDGE_COLOURS",
    "MAX_NODES",
    "NODE_COLOURS",
    "POOL_K",
    "TERMS",
    "EvidencePicture",
    "MissedGold",
    "PictureEdge",
    "PictureNode",
    "build_picture",
    "cypher_string",
    "draw_evidence",
    "draw_picture",
    "evidence_cypher",
    "evidence_picture",
    "evidence_subgraph",
    "grade",
    "missed_gold",
    "plot_terms",
    "save_picture",
    "to_html",
    "to_visualization_graph",
    "write_html",
]
