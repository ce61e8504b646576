from django.urls import path

from memoryhub.dashboard.views import spaces

app_name = "dashboard"
urlpatterns = [
    path("", spaces.home, name="home"),
]
