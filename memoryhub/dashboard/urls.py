from django.urls import path

from memoryhub.dashboard.views import jobs, maintenance, notebooks, providers, spaces, tokens, writes

app_name = "dashboard"
urlpatterns = [
    path("", spaces.home, name="home"),
    # space maintenance: consolidation, gc, compaction, history import, packs, origin re-tag
    path("spaces/<slug:slug>/maintenance/", maintenance.maintenance, name="maintenance"),
    path("spaces/<slug:slug>/maintenance/jobs/<int:job_id>/", maintenance.job_progress, name="maintenance-job"),
    path("spaces/<slug:slug>/maintenance/consolidate/", maintenance.consolidate_apply, name="consolidate"),
    path("spaces/<slug:slug>/maintenance/consolidate/<int:run_id>/undo/", maintenance.consolidate_undo,
         name="consolidate-undo"),
    path("spaces/<slug:slug>/maintenance/gc/<int:entry_id>/keep/", maintenance.gc_keep, name="gc-keep"),
    path("spaces/<slug:slug>/maintenance/compact/", maintenance.compact_start, name="compact"),
    path("spaces/<slug:slug>/maintenance/import/", maintenance.import_history, name="import-history"),
    path("spaces/<slug:slug>/maintenance/retag/", maintenance.retag_origin, name="retag-origin"),
    path("spaces/<slug:slug>/maintenance/pack/", maintenance.pack_export, name="pack-export"),
    path("packs/import/", maintenance.pack_import, name="pack-import"),
    # provider services, jobs, API tokens
    path("providers/", providers.provider_list, name="providers"),
    path("providers/<str:kind>/", providers.provider_save, name="provider-save"),
    path("providers/<str:kind>/test", providers.provider_test, name="provider-test"),
    path("jobs/", jobs.job_list, name="jobs"),
    path("jobs/selftest", jobs.job_selftest, name="job-selftest"),
    path("jobs/<int:job_id>/retry", jobs.job_retry, name="job-retry"),
    path("tokens/", tokens.token_list, name="tokens"),
    path("tokens/<int:token_id>/revoke", tokens.token_revoke, name="token-revoke"),
    # notebooks (hot memory): scope is "global" or a workspace slug
    path("notebooks/<slug:scope>/", notebooks.notebook_page, name="notebook"),
    path("notebooks/<slug:scope>/<str:target>/download", notebooks.notebook_download, name="notebook-download"),
    path("notebooks/<slug:scope>/<str:target>/import", notebooks.notebook_import, name="notebook-import"),
    path("notebooks/<slug:scope>/<str:target>/<str:action>", notebooks.notebook_change, name="notebook-change"),
    # writes to third-party spaces, with receipts and re-checks
    path("writes/", writes.write_list, name="writes"),
    path("writes/<int:write_id>/recheck", writes.write_recheck, name="write-recheck"),
]
