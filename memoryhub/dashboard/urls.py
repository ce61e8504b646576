from django.urls import path

from memoryhub.dashboard.views import notebooks, spaces

app_name = "dashboard"
urlpatterns = [
    path("", spaces.home, name="home"),
    # notebooks (hot memory): scope is "global" or a workspace slug
    path("notebooks/<slug:scope>/", notebooks.notebook_page, name="notebook"),
    path("notebooks/<slug:scope>/<str:target>/download", notebooks.notebook_download, name="notebook-download"),
    path("notebooks/<slug:scope>/<str:target>/import", notebooks.notebook_import, name="notebook-import"),
    path("notebooks/<slug:scope>/<str:target>/<str:action>", notebooks.notebook_change, name="notebook-change"),
]
