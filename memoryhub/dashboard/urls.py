from django.urls import path

from memoryhub.dashboard.views import (
    charts, choose, connect, entities, facts, graph, jobs, maintenance, memories, notebooks, persona, providers, recall,
    spaces, tokens, tuning, workspaces, writes,
)

app_name = "dashboard"
urlpatterns = [
    # spaces overview and a space's tabs
    path("", spaces.home, name="home"),
    path("search/", spaces.search_all, name="search"),
    path("spaces/new/", spaces.space_create, name="space_create"),
    path("spaces/choose/", choose.choose_provider_page, name="choose"),
    path("spaces/<slug:slug>/", memories.memories, name="space"),
    path("spaces/<slug:slug>/edit/", spaces.space_edit, name="space_edit"),
    path("spaces/<slug:slug>/toggle/", spaces.space_toggle, name="space_toggle"),
    path("spaces/<slug:slug>/delete/", spaces.space_delete, name="space_delete"),
    path("spaces/<slug:slug>/note/", memories.note, name="note"),
    path("spaces/<slug:slug>/bulk/", memories.bulk, name="bulk"),
    path("spaces/<slug:slug>/entries/<int:pk>/", memories.entry_detail, name="entry"),
    path("spaces/<slug:slug>/entries/<int:pk>/edit/", memories.entry_edit, name="entry_edit"),
    path("spaces/<slug:slug>/entries/<int:pk>/forget/", memories.entry_forget, name="entry_forget"),
    path("spaces/<slug:slug>/records/forget/", memories.record_forget, name="record_forget"),
    path("spaces/<slug:slug>/activity/", memories.activity, name="activity"),
    path("spaces/<slug:slug>/settings/", tuning.space_settings_page, name="space_settings"),
    path("spaces/<slug:slug>/persona/", persona.persona, name="persona"),
    path("spaces/<slug:slug>/persona/rebuild/", persona.rebuild, name="persona_rebuild"),
    path("spaces/<slug:slug>/persona/jobs/<int:job_id>/", persona.job_status, name="persona_job"),
    path("spaces/<slug:slug>/facts/", facts.facts, name="facts"),
    path("spaces/<slug:slug>/facts/history/", facts.history, name="fact_history"),
    path("spaces/<slug:slug>/facts/<int:pk>/invalidate/", facts.invalidate, name="fact_invalidate"),
    path("spaces/<slug:slug>/recall/", recall.preview, name="recall"),
    path("spaces/<slug:slug>/graph/", graph.graph_page, name="graph"),
    path("spaces/<slug:slug>/entities/", entities.entities_page, name="entities"),
    path("spaces/<slug:slug>/related/", entities.related_records, name="memory-related"),
    path("spaces/<slug:slug>/link/", entities.link_records, name="memory-link"),
    path("spaces/<slug:slug>/feedback/", entities.record_feedback, name="memory-feedback"),
    path("spaces/<slug:slug>/graph.json", graph.graph_data, name="graph_data"),
    path("spaces/<slug:slug>/charts/", charts.charts, name="charts"),
    # space maintenance: consolidation, gc, compaction, history import, packs, origin re-tag
    path("spaces/<slug:slug>/maintenance/", maintenance.maintenance, name="maintenance"),
    path("spaces/<slug:slug>/maintenance/jobs/<int:job_id>/", maintenance.job_progress, name="maintenance-job"),
    path("spaces/<slug:slug>/maintenance/consolidate/", maintenance.consolidate_apply, name="consolidate"),
    path("spaces/<slug:slug>/maintenance/consolidate/<int:run_id>/undo/", maintenance.consolidate_undo,
         name="consolidate-undo"),
    path("spaces/<slug:slug>/maintenance/gc/<int:entry_id>/keep/", maintenance.gc_keep, name="gc-keep"),
    path("spaces/<slug:slug>/maintenance/compact/", maintenance.compact_start, name="compact"),
    path("spaces/<slug:slug>/maintenance/embed/", maintenance.embed_start, name="embed"),
    path("spaces/<slug:slug>/maintenance/import/", maintenance.import_history, name="import-history"),
    path("spaces/<slug:slug>/maintenance/retag/", maintenance.retag_origin, name="retag-origin"),
    path("spaces/<slug:slug>/maintenance/pack/", maintenance.pack_export, name="pack-export"),
    path("packs/import/", maintenance.pack_import, name="pack-import"),
    # provider services, jobs, API tokens
    path("providers/", providers.provider_list, name="providers"),
    path("providers/<str:kind>/", providers.provider_save, name="provider-save"),
    path("providers/<str:kind>/test", providers.provider_test, name="provider-test"),
    path("providers/<str:kind>/discover", providers.provider_discover, name="provider-discover"),
    path("jobs/", jobs.job_list, name="jobs"),
    path("jobs/selftest", jobs.job_selftest, name="job-selftest"),
    path("jobs/<int:job_id>/retry", jobs.job_retry, name="job-retry"),
    path("tokens/", tokens.token_list, name="tokens"),
    path("tokens/<int:token_id>/revoke", tokens.token_revoke, name="token-revoke"),
    # connect an agent: a token, ready-to-paste configs, and a wait for its first call
    path("connect/", connect.connect, name="connect"),
    path("connect/<int:token_id>/status", connect.connect_status, name="connect-status"),
    # notebooks (hot memory): scope is "global" or a workspace slug
    path("notebooks/<slug:scope>/", notebooks.notebook_page, name="notebook"),
    path("notebooks/<slug:scope>/<str:target>/download", notebooks.notebook_download, name="notebook-download"),
    path("notebooks/<slug:scope>/<str:target>/import", notebooks.notebook_import, name="notebook-import"),
    path("notebooks/<slug:scope>/<str:target>/<str:action>", notebooks.notebook_change, name="notebook-change"),
    # writes to third-party spaces, with receipts and re-checks
    path("writes/", writes.write_list, name="writes"),
    path("writes/<int:write_id>/recheck", writes.write_recheck, name="write-recheck"),
    # workspaces agents named, and whether the hub may write MEMORY.md into them
    path("workspaces/", workspaces.workspace_list, name="workspaces"),
    path("workspaces/<slug:slug>/export", workspaces.workspace_export, name="workspace_export"),
]
