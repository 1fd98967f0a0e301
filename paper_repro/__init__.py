"""The papers' figures and tables, attempted on simulated stand-ins: cross-replication
reliability (Wong, Paritosh & Aroyo 2021: ``xrr_cases``, ``xrr_fig7``, helpers in
``paper_repro.reporting``) and sparse probability of agreement (Nørregaard & Derczynski 2022:
``spa_fig4`` to ``spa_fig7_table1``, helpers in ``paper_repro.spa_engine``); and, on real
data read with ``kappalab.datasets.fetch``: cross-replication reliability on real rater pools
(``xrr_real``: MBIC's crowd and BABE's experts) and Snow, O'Connor, Jurafsky & Ng 2008
(``snow2008``: worker agreement, agreement with gold, inter-annotator correlation vs α). Each
is a module run from the repository root, ``python -m paper_repro.<name> [--quick]``
(``make repro`` runs them all); outputs go to ``results/paper_repro/`` (``--out`` to change).
How far each gets — reproduced, qualitatively reproduced or not reproduced, claim by claim —
is one table, ``paper_repro.status``, which every script prints. See
``paper_repro/README.md``. Not part of the kappalab wheel.
"""
