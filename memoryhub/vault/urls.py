from django.urls import path

from memoryhub.vault import views

app_name = "vault"
urlpatterns = [
    path("", views.entries, name="entries"),
    path("companion/", views.entries, {"companion": True}, name="companion"),
    path("entries/<int:entry_id>/", views.entry, name="entry"),
    path("requests/", views.requests, name="requests"),
    path("requests/<str:request_id>/approve", views.approve, name="approve"),
    path("requests/<str:request_id>/deny", views.deny, name="deny"),
    path("grants/", views.granted, name="grants"),
    path("grants/<str:request_id>/revoke", views.revoke, name="revoke"),
    path("export/<slug:slug>/MEMORY.md", views.export_download, name="export"),
]
