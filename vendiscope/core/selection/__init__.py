"""Selection algorithms: choose ``k`` rows of a vector set under a budget.

Pure numpy/FAISS functions, one module each; they never touch a project. Every function
has the form ``fn(vectors, k, *, quality=None, ..., progress=None, cancel=None)`` and
returns a :class:`~vendiscope.core.plugin_host.interfaces.Selection` whose ``indices`` are ``k``
unique row indices in selection order, ``gains`` the marginal gain of each pick in the
method's objective, and ``details`` at least ``objective_name``, ``objective`` (of the whole
set) and ``objective_trace`` (of every prefix). Inputs are never modified; bad input raises
``ValueError`` naming the parameter or the first bad row; a row of quality 0 is never picked.

=====================================================  =========================================
function (module)                                      objective
=====================================================  =========================================
:func:`~.greedy_vendi.greedy_vendi`                    Vendi score q = 1 or 2 (quality-weighted)
:func:`~.prismatic.prismatic`                          k-means clusters covered
:func:`~.kcenter.k_center`                             covering radius (minimised)
:func:`~.facility.facility_location`                   facility location on a kNN graph
:func:`~.dpp.greedy_dpp`                               log det of the (quality) cosine kernel
:func:`~.random_choice.random_selection`               none (the prefix size)
=====================================================  =========================================

Import the functions from their modules, e.g.
``from vendiscope.core.selection.algorithms.greedy_vendi import greedy_vendi``.
"""
