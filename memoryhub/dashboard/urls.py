from django.urls import path

from memoryhub.dashboard.views import facts, graph, memories, persona, recall, spaces

app_name = "dashboard"
urlpatterns = [
    # spaces overview and a space's tabs
    path("", spaces.home, name="home"),
    path("search/", spaces.search_all, name="search"),
    path("spaces/new/", spaces.space_create, name="space_create"),
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
    path("spaces/<slug:slug>/persona/", persona.persona, name="persona"),
    path("spaces/<slug:slug>/persona/rebuild/", persona.rebuild, name="persona_rebuild"),
    path("spaces/<slug:slug>/persona/jobs/<int:job_id>/", persona.job_status, name="persona_job"),
    path("spaces/<slug:slug>/facts/", facts.facts, name="facts"),
    path("spaces/<slug:slug>/facts/history/", facts.history, name="fact_history"),
    path("spaces/<slug:slug>/facts/<int:pk>/invalidate/", facts.invalidate, name="fact_invalidate"),
    path("spaces/<slug:slug>/recall/", recall.preview, name="recall"),
    path("spaces/<slug:slug>/graph/", graph.graph_page, name="graph"),
    path("spaces/<slug:slug>/graph.json", graph.graph_data, name="graph_data"),
]
