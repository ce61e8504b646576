from django.urls import path

from memoryhub.api import views

app_name = "api"
urlpatterns = [
    path("health", views.health, name="health"),
    path("providers", views.providers, name="providers"),
    path("spaces", views.spaces, name="spaces"),
    path("turns", views.turns, name="turns"),
    path("context", views.context, name="context"),
    path("sessions/<str:session_id>/end", views.session_end, name="session-end"),
    path("tools", views.tool_list, name="tools"),
    path("tools/<str:name>", views.tool_call, name="tool-call"),
]
